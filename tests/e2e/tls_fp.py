#!/usr/bin/env python3
"""JA3 and JA4 of a TLS ClientHello, written apart from shb's C code so that
the end-to-end test compares two implementations.

  tls_fp.py [--quic] FILE   FILE holds TLS records as captured off the wire
                            (or, with --quic, one ClientHello handshake
                            message); prints "JA3 JA4".
  tls_fp.py --quic-tp FILE  FILE holds one ClientHello handshake message;
                            prints the ids of its QUIC transport parameters
                            in order, joined by '-'.
  tls_fp.py --quic-tp-values FILE  the same parameters with their values,
                            joined by ';', as curl-impersonate's HTTP/3
                            capture list writes them: ID:VALUE (integers of
                            RFC 9000 and RFC 9221 in decimal, others in
                            hex), 15:SCID, 17:CHOSEN@AVAILABLE,... with a
                            reserved version as GREASE, a reserved
                            (31 * N + 27) parameter as GREASE.
  tls_fp.py --quic-offer FILE  the suites, groups and signature
                            algorithms of that ClientHello, in decimal,
                            each joined by '-', the three by ','.
"""
import hashlib
import struct
import sys


def is_grease(v):
    return (v & 0x0F0F) == 0x0A0A and (v >> 8) == (v & 0xFF)


def hello_from_records(data):
    """Joins the handshake records' payloads and returns one ClientHello."""
    out = b""
    off = 0
    while off + 5 <= len(data):
        ctype, _, n = struct.unpack_from("!BHH", data, off)
        if ctype != 22:
            raise ValueError("record type %d is not handshake" % ctype)
        out += data[off + 5:off + 5 + n]
        off += 5 + n
        if len(out) >= 4:
            want = 4 + int.from_bytes(out[1:4], "big")
            if len(out) >= want:
                return out[:want]
    raise ValueError("no whole ClientHello in %d bytes" % len(data))


def parse(msg):
    if msg[0] != 1:
        raise ValueError("not a ClientHello")
    body = msg[4:4 + int.from_bytes(msg[1:4], "big")]
    h = {"legacy": struct.unpack_from("!H", body, 0)[0]}
    p = 2 + 32
    p += 1 + body[p]
    n = struct.unpack_from("!H", body, p)[0]
    h["ciphers"] = [c for c in struct.unpack_from("!%dH" % (n // 2), body, p + 2)
                    if not is_grease(c)]
    p += 2 + n
    p += 1 + body[p]
    h.update(exts=[], groups=[], pf=[], sigalgs=[], alpn=None, sni=False,
             versions=[])
    if p < len(body):
        end = p + 2 + struct.unpack_from("!H", body, p)[0]
        p += 2
        while p < end:
            t, n = struct.unpack_from("!HH", body, p)
            d = body[p + 4:p + 4 + n]
            p += 4 + n
            if is_grease(t):
                continue
            h["exts"].append(t)
            u16 = lambda b: [v for v in struct.unpack("!%dH" % (len(b) // 2), b)
                             if not is_grease(v)]
            if t == 0:
                h["sni"] = True
            elif t == 10:
                h["groups"] = u16(d[2:])
            elif t == 11:
                h["pf"] = list(d[1:1 + d[0]])
            elif t == 13:
                h["sigalgs"] = u16(d[2:])
            elif t == 16 and len(d) > 2:
                h["alpn"] = d[3:3 + d[2]]
            elif t == 43:
                h["versions"] = u16(d[1:1 + d[0]])
            elif t == 57:
                h["tp_ids"] = tp_ids(d)
                h["tp_values"] = tp_values(d)
    return h


def varint(b, i):
    n = 1 << (b[i] >> 6)
    v = b[i] & 0x3F
    for k in range(1, n):
        v = (v << 8) | b[i + k]
    return v, i + n


def tp_ids(d):
    """The ids of a quic_transport_parameters extension body, in order."""
    ids, i = [], 0
    while i < len(d):
        pid, i = varint(d, i)
        n, i = varint(d, i)
        ids.append(pid)
        i += n
    if i != len(d):
        raise ValueError("transport parameters cut short")
    return ids


def tp_value(pid, v):
    if (pid - 27) % 31 == 0 and pid >= 27:
        return "GREASE"
    if pid == 15:
        return "15:SCID"
    if pid == 17:
        vs = ["GREASE" if (x & 0x0F0F0F0F) == 0x0A0A0A0A else str(x)
              for x in struct.unpack("!%dI" % (len(v) // 4), v)]
        return "17:%s@%s" % (vs[0], ",".join(vs[1:]))
    if pid <= 0x20 and v:
        x, end = varint(v, 0)
        if end == len(v):
            return "%d:%d" % (pid, x)
    return "%d:%s" % (pid, v.hex())


def tp_values(d):
    """The parameters of the extension body, as --quic-tp-values prints."""
    out, i = [], 0
    while i < len(d):
        pid, i = varint(d, i)
        n, i = varint(d, i)
        out.append(tp_value(pid, d[i:i + n]))
        i += n
    return out


def ja3(h):
    j = lambda l: "-".join(str(v) for v in l)
    s = "%d,%s,%s,%s,%s" % (h["legacy"], j(h["ciphers"]), j(h["exts"]),
                            j(h["groups"]), j(h["pf"]))
    return hashlib.md5(s.encode()).hexdigest()


def ja4(h, quic):
    names = {0x0304: "13", 0x0303: "12", 0x0302: "11", 0x0301: "10",
             0x0300: "s3", 0x0002: "s2", 0xFEFF: "d1", 0xFEFD: "d2",
             0xFEFC: "d3"}
    version = max(h["versions"]) if h["versions"] else h["legacy"]
    a = h["alpn"]
    if not a:
        alpn = "00"
    elif chr(a[0]).isalnum() and chr(a[-1]).isalnum() and a[0] < 128 and a[-1] < 128:
        alpn = chr(a[0]) + chr(a[-1])
    else:
        alpn = "%02x" % a[0]
        alpn = alpn[0] + ("%02x" % a[-1])[1]
    hx = lambda l: ",".join("%04x" % v for v in l)
    sha = lambda s: hashlib.sha256(s.encode()).hexdigest()[:12]
    ciphers = sorted(h["ciphers"])
    exts = sorted(e for e in h["exts"] if e not in (0, 16))
    b = sha(hx(ciphers)) if ciphers else "0" * 12
    c = hx(exts)
    if h["sigalgs"]:
        c += "_" + hx(h["sigalgs"])
    c = sha(c) if exts else "0" * 12
    return "%s%s%s%02d%02d%s_%s_%s" % (
        "q" if quic else "t", names.get(version, "00"), "d" if h["sni"] else "i",
        min(len(h["ciphers"]), 99), min(len(h["exts"]), 99), alpn, b, c)


def main():
    if sys.argv[1] == "--quic-tp":
        h = parse(open(sys.argv[2], "rb").read())
        print("-".join(str(i) for i in h["tp_ids"]))
        return
    if sys.argv[1] == "--quic-tp-values":
        h = parse(open(sys.argv[2], "rb").read())
        print(";".join(h["tp_values"]))
        return
    if sys.argv[1] == "--quic-offer":
        h = parse(open(sys.argv[2], "rb").read())
        j = lambda l: "-".join(str(v) for v in l)
        print("%s,%s,%s" % (j(h["ciphers"]), j(h["groups"]), j(h["sigalgs"])))
        return
    quic = sys.argv[1] == "--quic"
    data = open(sys.argv[-1], "rb").read()
    msg = data if quic else hello_from_records(data)
    h = parse(msg)
    print(ja3(h), ja4(h, quic))


if __name__ == "__main__":
    main()
