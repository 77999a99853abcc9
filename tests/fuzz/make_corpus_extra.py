#!/usr/bin/env python3
"""Writes the seed corpora of the targets for untrusted input outside the
protocol plugins' own parsers: elf (small ELF files crafted here, each a
few hundred bytes: a plugin with one extra export, and the ways a file can
lie about its tables), check_needed (small ELF files with a dynamic section: a plugin built with
AddressSanitizer and the ways its tables can lie), proxy_connect (answers
to CONNECT), h1_proxy (the
HTTP/1.1 responses of tests/h1, through make_corpus.py, as a forward
proxy's answers), ws_frame (server frames), grpc_msg (response bodies
and trailer values), redis_resp (RESP2 replies) and prom_answer (remote-write
receivers' answers). Each seed starts with the control bytes its target
reads (see the top of each fuzz_*.c). Rewrites those corpus directories;
the output is committed."""
import struct
import sys

import make_corpus as mc

PLAN = mc.PLAN

# ---- elf ----------------------------------------------------------------------

SHT_STRTAB, SHT_DYNSYM = 3, 11


def elf(shnum_override=None, link=2, entsize=24, strtype=SHT_STRTAB,
        cut=None, extra=(b'extra_fn',)):
    """A native (x86-64) ELF with .dynstr, .dynsym and section headers."""
    names = [b'shb_plugin_entry_v1'] + list(extra)
    strtab = b'\0' + b''.join(n + b'\0' for n in names)
    str_off = 64
    sym_off = (str_off + len(strtab) + 7) & ~7
    syms = b'\0' * 24
    pos = 1
    for n in names:
        # STB_GLOBAL, STT_FUNC; default visibility; section 1
        syms += struct.pack('<IBBHQQ', pos, 0x12, 0, 1, 0x1000 + pos, 8)
        pos += len(n) + 1
    sh_off = sym_off + len(syms)
    shdrs = b'\0' * 64
    shdrs += struct.pack('<IIQQQQIIQQ', 0, SHT_DYNSYM, 2, 0, sym_off,
                         len(syms), link, 1, 8, entsize)
    shdrs += struct.pack('<IIQQQQIIQQ', 0, strtype, 2, 0, str_off,
                         len(strtab), 0, 0, 1, 0)
    shnum = 3 if shnum_override is None else shnum_override
    ident = b'\x7fELF' + bytes([2, 1, 1]) + b'\0' * 9
    eh = ident + struct.pack('<HHIQQQIHHHHHH', 3, 62, 1, 0, 0, sh_off, 0,
                             64, 56, 0, 64, shnum, 0)
    img = bytearray(eh + strtab)
    img += b'\0' * (sym_off - len(img))
    img += syms + shdrs
    return bytes(img[:cut] if cut else img)


def elf_seeds():
    return [elf(), elf(extra=()), elf(extra=(b'a', b'bb', b'ccc')),
            elf(shnum_override=0), elf(link=7), elf(entsize=0),
            elf(strtype=1), elf(cut=100), elf(cut=300)]


# ---- check_needed ---------------------------------------------------------------

SHT_DYNAMIC, DT_NEEDED = 6, 1


def needed_elf(libs=(b'libasan.so.8', b'libc.so.6'), link=2, dyntype=SHT_DYNAMIC,
               bad_offset=False, no_null=False, cut=None):
    """A native (x86-64) ELF with .dynamic (DT_NEEDED entries, DT_NULL) and
    .dynstr: what shb-plugin-check reads to find a sanitizer runtime."""
    strtab = b'\0' + b''.join(n + b'\0' for n in libs)
    str_off = 64
    dyn_off = (str_off + len(strtab) + 7) & ~7
    dyn = b''
    pos = 1
    for n in libs:
        dyn += struct.pack('<qQ', DT_NEEDED, 0x7fffffff if bad_offset else pos)
        pos += len(n) + 1
    if not no_null:
        dyn += struct.pack('<qQ', 0, 0)
    sh_off = dyn_off + len(dyn)
    shdrs = b'\0' * 64
    shdrs += struct.pack('<IIQQQQIIQQ', 0, dyntype, 3, 0, dyn_off, len(dyn),
                         link, 0, 8, 16)
    shdrs += struct.pack('<IIQQQQIIQQ', 0, SHT_STRTAB, 2, 0, str_off,
                         len(strtab), 0, 0, 1, 0)
    ident = b'\x7fELF' + bytes([2, 1, 1]) + b'\0' * 9
    eh = ident + struct.pack('<HHIQQQIHHHHHH', 3, 62, 1, 0, 0, sh_off, 0,
                             64, 56, 0, 64, 3, 0)
    img = bytearray(eh + strtab)
    img += b'\0' * (dyn_off - len(img))
    img += dyn + shdrs
    return bytes(img[:cut] if cut else img)


def check_needed_seeds():
    return [needed_elf(), needed_elf(libs=(b'libc.so.6',)),
            needed_elf(libs=(b'libm.so.6', b'libubsan.so.1', b'libasan.so.6')),
            needed_elf(link=9), needed_elf(dyntype=1), needed_elf(bad_offset=True),
            needed_elf(no_null=True), needed_elf(cut=90), needed_elf(cut=200),
            elf()]


# ---- proxy_connect ----------------------------------------------------------------

def proxy_connect_seeds():
    answers = [
        b'HTTP/1.1 200 Connection established\r\n\r\n',
        b'HTTP/1.1 200 OK\r\nProxy-Agent: fuzz/1\r\n\r\n\x16\x03\x01',
        b'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n',
        b'HTTP/1.0 407 Proxy Authentication Required\r\n'
        b'Proxy-Authenticate: Basic realm="x"\r\nContent-Length: 0\r\n\r\n',
        b'HTTP/1.1 502 Bad Gateway\n\n',
        b'HTTP/1.1 200\r\n\r\n',
        b'SSH-2.0-OpenSSH_9.2\r\n',
    ]
    seeds = [b'\x00' + PLAN + a for a in answers]
    seeds.append(b'\x00\x01\x05\x00' + answers[2])  # one cut, at 5
    seeds.append(b'\x01' + PLAN + b'X-Pad: ' + b'y' * 60 + b'\r\n')  # cap
    return seeds


# ---- h1_proxy -------------------------------------------------------------------------

def h1_proxy_seeds():
    resp = [s[2:] for s in mc.h1_seeds() if s[0] == 0]
    seeds = []
    for i, r in enumerate(resp):
        flags = (i & 3) << 5  # the origin's authority
        seeds.append(bytes([flags, 0x06]) + PLAN + r)
    ok = b'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'
    seeds.append(b'\x01\x1b' + PLAN + struct.pack('<H', len(ok)) + ok + ok)
    seeds.append(b'\x88\x00' + PLAN + b'HTTP/1.0 200 OK\r\n\r\nuntil close')
    seeds.append(b'\x10\x02' + PLAN + b'HTTP/1.1 407 Proxy Authentication '
                 b'Required\r\nContent-Length: 3\r\n\r\n')
    return seeds


# ---- ws_frame ---------------------------------------------------------------------------

def ws_seeds():
    frames = [
        b'\x81\x05hello',
        b'\x82\x7e\x00\x80' + bytes(range(128)),
        b'\x01\x03abc\x00\x02de\x80\x01f',
        b'\x89\x00\x8a\x04pong',
        b'\x88\x02\x03\xe8',
        b'\x82\x7f' + struct.pack('>Q', 5) + b'short',  # not shortest form
        b'\x91\x00',  # RSV1
        b'\x81\x85abcd',  # masked from a server
    ]
    seeds = [b'\x00' + PLAN + f for f in frames]
    seeds.append(b'\x00\x02\x03\x00\x09\x00' + frames[0] + frames[3])
    seeds.append(b'\x03' + PLAN + frames[0] + frames[4])  # callback error
    return seeds


# ---- grpc_msg ---------------------------------------------------------------------------

def grpc_seeds():
    def msg(b, flag=0):
        return bytes([flag]) + struct.pack('>I', len(b)) + b
    bodies = [
        (6, msg(b'\x08\x96\x01')),
        (6, msg(b'') + msg(b'hello') + msg(b'x' * 40)),
        (4, msg(b'y' * 200)),
        (6, msg(b'zz', 1)),
        (6, msg(b'zz', 7)),
        (6, msg(b'part')[:7]),
        (0, b'0'), (0, b'14'), (0, b'4294967296'),
        (0, b'a%20b%zz%4'), (0, b'%E2%9C%93 done'),
    ]
    return [bytes([m]) + PLAN + b for m, b in bodies]


# ---- redis_resp -------------------------------------------------------------------------

def redis_seeds():
    streams = [
        (6, b'+OK\r\n'),
        (6, b'+PONG\r\n+PONG\r\n:1000\r\n:-7\r\n'),
        (6, b'-ERR value is not an integer or out of range\r\n'),
        (6, b'-WRONGTYPE Operation against a key holding the wrong kind of value\r\n'),
        (6, b'$5\r\nhello\r\n$0\r\n\r\n$-1\r\n'),
        (6, b'*3\r\n$3\r\nfoo\r\n*2\r\n:1\r\n-ERR x\r\n*-1\r\n*0\r\n'),
        (6, b'*1\r\n' * 16 + b':1\r\n'),
        (6, b'*1\r\n' * 17 + b':1\r\n'),
        (2, b'$6\r\nhello!\r\n'),
        (6, b'$1048577\r\n'),
        (6, b'*1048577\r\n'),
        (6, b'_\r\n'),
        (6, b'$-2\r\n'),
        (6, b'+OK\n'),
        (6, b':12345678901234567890\r\n'),
        (6, b'$3\r\nabcd\r\n'),
    ]
    seeds = [bytes([m]) + PLAN + b for m, b in streams]
    seeds.append(b'\x06\x02\x03\x00\x09\x00' + streams[1][1] + streams[4][1])
    seeds.append(b'\x06\x04' + streams[5][1])  # one byte at a time
    return seeds


# ---- prom_answer ------------------------------------------------------------------------

def prom_answer_seeds():
    answers = [
        b'HTTP/1.1 204 No Content\r\nDate: Sun, 06 Dec 2026 08:00:00 GMT\r\n\r\n',
        b'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n'
        b'Content-Length: 35\r\n\r\nout of order sample for series x\n',
        b'HTTP/1.0 500 Internal Server Error\r\n\r\n' + b'e' * 300,
        b'HTTP/1.1 200\n\n',
        b'HTTP/1.1 2000 x\r\n',
        b'HTTP/2 200\r\n',
        b'HTTP/1.1 200 ' + b'x' * 1100,
        b'SSH-2.0-OpenSSH_9.2\r\n',
        b'HTTP/1.1 404 \x01\x7f\r\n\r\n\x00\xff\r\n',
    ]
    seeds = [PLAN + a for a in answers]
    seeds.append(b'\x02\x05\x00\x0c\x00' + answers[1])  # cut in the line
    seeds.append(b'\x04' + answers[0])  # one byte at a time
    return seeds


# ---- dns_reply --------------------------------------------------------------------------

def dns_seeds():
    def header(rcode=0, tc=0, qd=1, an=0, ns=0, ar=0, qr=1):
        return struct.pack('>HBBHHHH', 0x1234, qr << 7 | tc << 1 | 1,
                           0x80 | rcode, qd, an, ns, ar)
    q = b'\x07example\x03com\x00\x00\x01\x00\x01'
    a = b'\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x7f\x00\x00\x01'
    txt = b'\xc0\x0c\x00\x10\x00\x01\x00\x00\x00\x3c\x00\x06\x05hello'
    opt = b'\x00\x00\x29\x04\xd0\x00\x00\x00\x00\x00\x00'
    soa = (b'\xc0\x14\x00\x06\x00\x01\x00\x00\x00\x3c\x00\x18'
           b'\x02ns\xc0\x14\x04host\xc0\x14' + b'\x00' * 8)
    return [
        header(an=1) + q + a,
        header(an=2) + q + a + a,
        header(an=1, ar=1) + q + txt + opt,
        header(rcode=3, ns=1) + q + soa,
        header(rcode=5) + q,
        header(rcode=2) + q,
        header(rcode=1, qd=0),
        header() + q,
        header(tc=1, an=3) + q + a[:7],
        header(an=1) + q + b'\xc0\x1d' + a[2:],          # points at itself
        header(an=1) + q + b'\xc0\x40' + a[2:],          # forward
        header(an=1) + q[:8] + b'\xc0\x0c' + q[13:] + a,  # question loops
        header(an=1) + q + a[:-1],
        header(an=1) + q + a + b'\x00',
        header(qd=2) + q + q,
        header(an=1) + b'\x3f' + b'a' * 63 + b'\x00\x00\x01\x00\x01' + a,
        header(qr=0) + q,
        header()[:11],
    ]


mc.TARGETS = {
    'elf': lambda: [bytes(s) for s in elf_seeds()],
    'check_needed': check_needed_seeds,
    'proxy_connect': proxy_connect_seeds,
    'h1_proxy': h1_proxy_seeds,
    'ws_frame': ws_seeds,
    'grpc_msg': grpc_seeds,
    'redis_resp': redis_seeds,
    'prom_answer': prom_answer_seeds,
    'dns_reply': dns_seeds,
}

if __name__ == '__main__':
    sys.exit(mc.main())
