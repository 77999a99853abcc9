#!/usr/bin/env python3
"""An HTTP/2 server on 127.0.0.1 that fingerprints its clients the way a
CDN does, written apart from shb's C code so that the end-to-end test
compares what shb reports with what a server saw.

  h2_fp_server.py PORT_FILE OUT_FILE [CERT KEY]

With CERT and KEY it speaks TLS (ALPN h2; Python's ssl module over memory
buffers, so that the ClientHello's raw records are kept), else h2c with
prior knowledge. Frames are parsed here (9-octet headers, SETTINGS
entries, PRIORITY and WINDOW_UPDATE payloads); header blocks are decoded
with python3-hpack. Every request is answered 200 with the body "ok".

For each connection, once its first HEADERS is in, OUT_FILE gets one JSON
line: "akamai" (SETTINGS id:value in order joined by ';' | the increment
of the first WINDOW_UPDATE on stream 0 before that HEADERS, or 00 |
PRIORITY frames before it as stream:exclusive:dependency:weight joined by
',', or 0 | the pseudo-headers' first letters in order), "stream" (the
first request's stream id), "headers" (the regular fields, [name, value]
in order) and, over TLS, "ja3" and "ja4" of the ClientHello received and
its "ciphers", "groups" and "sigalgs" (GREASE left out).
Writes its port to PORT_FILE once listening; runs until killed.
"""
import json
import os
import socket
import ssl
import struct
import sys
import threading

import hpack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tls_fp  # noqa: E402  (the JA3/JA4 of tls-fp.sh, same directory)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
out_lock = threading.Lock()


class Wire:
    """Bytes to and from one client: plain, or TLS over memory BIOs so
    that the first records (the ClientHello) are kept as received."""

    def __init__(self, sock, ctx):
        self.sock = sock
        self.hello = b""
        self.tls = None
        if ctx:
            self.inc, self.outg = ssl.MemoryBIO(), ssl.MemoryBIO()
            self.tls = ctx.wrap_bio(self.inc, self.outg, server_side=True)
            self.handshake()

    def _pump_in(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        if len(self.hello) < 16384:
            self.hello += data
        self.inc.write(data)

    def _flush(self):
        data = self.outg.read()
        if data:
            self.sock.sendall(data)

    def handshake(self):
        while True:
            try:
                self.tls.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                self._pump_in()

    def recv(self):
        if not self.tls:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            return data
        while True:
            try:
                data = self.tls.read(65536)
                if not data:
                    raise EOFError
                return data
            except ssl.SSLWantReadError:
                self._pump_in()

    def send(self, data):
        if not self.tls:
            self.sock.sendall(data)
            return
        self.tls.write(data)
        self._flush()


def frame(ftype, flags, sid, payload=b""):
    return struct.pack("!I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack("!I", sid) + payload


class Conn:
    def __init__(self, wire, out):
        self.wire, self.out = wire, out
        self.buf = b""
        self.settings = None
        self.window = None
        self.prio = []
        self.reported = False
        self.dec, self.enc = hpack.Decoder(), hpack.Encoder()
        self.block = {}

    def need(self, n):
        while len(self.buf) < n:
            self.buf += self.wire.recv()

    def run(self):
        self.need(len(PREFACE))
        if self.buf[:len(PREFACE)] != PREFACE:
            raise ValueError("no HTTP/2 connection preface")
        self.buf = self.buf[len(PREFACE):]
        while True:
            self.need(9)
            n = int.from_bytes(self.buf[0:3], "big")
            ftype, flags = self.buf[3], self.buf[4]
            sid = int.from_bytes(self.buf[5:9], "big") & 0x7FFFFFFF
            self.need(9 + n)
            payload, self.buf = self.buf[9:9 + n], self.buf[9 + n:]
            self.on_frame(ftype, flags, sid, payload)

    def on_frame(self, ftype, flags, sid, p):
        if ftype == 4 and not flags & 1:  # SETTINGS
            if self.settings is None:
                self.settings = [struct.unpack_from("!HI", p, i)
                                 for i in range(0, len(p), 6)]
            self.wire.send(frame(4, 0, 0) + frame(4, 1, 0))
        elif ftype == 8 and sid == 0 and not self.reported and self.window is None:
            self.window = int.from_bytes(p[0:4], "big") & 0x7FFFFFFF
        elif ftype == 2 and not self.reported:  # PRIORITY
            dep = int.from_bytes(p[0:4], "big")
            self.prio.append("%d:%d:%d:%d" % (sid, dep >> 31, dep & 0x7FFFFFFF,
                                              p[4] + 1))
        elif ftype == 6 and not flags & 1:  # PING
            self.wire.send(frame(6, 1, 0, p))
        elif ftype in (1, 9):  # HEADERS, CONTINUATION
            self.on_headers(ftype, flags, sid, p)
        elif ftype == 0 and flags & 1:  # DATA with END_STREAM
            self.answer(sid)

    def on_headers(self, ftype, flags, sid, p):
        if ftype == 1:
            if flags & 0x8:  # PADDED
                p = p[1:len(p) - p[0]]
            if flags & 0x20:  # PRIORITY
                p = p[5:]
            self.block[sid] = [p, flags & 1]
        else:
            self.block[sid][0] += p
        if not flags & 0x4:  # END_HEADERS
            return
        blk, end = self.block.pop(sid)
        fields = [(k.decode() if isinstance(k, bytes) else k,
                   v.decode() if isinstance(v, bytes) else v)
                  for k, v in self.dec.decode(blk, raw=True)]
        if not self.reported:
            self.report(sid, fields)
        if end:
            self.answer(sid)

    def report(self, sid, fields):
        self.reported = True
        s = ";".join("%d:%d" % kv for kv in self.settings or [])
        w = "00" if self.window is None else str(self.window)
        pr = ",".join(self.prio) if self.prio else "0"
        ps = ",".join(k[1] for k, _ in fields if k.startswith(":"))
        rec = {"akamai": "%s|%s|%s|%s" % (s, w, pr, ps), "stream": sid,
               "headers": [[k, v] for k, v in fields if not k.startswith(":")]}
        if self.wire.tls:
            h = tls_fp.parse(tls_fp.hello_from_records(self.wire.hello))
            rec["ja3"], rec["ja4"] = tls_fp.ja3(h), tls_fp.ja4(h, False)
            rec["ciphers"], rec["groups"], rec["sigalgs"] = \
                h["ciphers"], h["groups"], h["sigalgs"]
        with out_lock, open(self.out, "a") as f:
            f.write(json.dumps(rec) + "\n")

    def answer(self, sid):
        head = self.enc.encode([(":status", "200"), ("content-length", "2")])
        self.wire.send(frame(1, 4, sid, head) + frame(0, 1, sid, b"ok"))


def serve(sock, ctx, out):
    try:
        Conn(Wire(sock, ctx), out).run()
    except (EOFError, OSError, ssl.SSLError, ValueError):
        pass
    finally:
        sock.close()


def main():
    port_file, out = sys.argv[1], sys.argv[2]
    ctx = None
    if len(sys.argv) > 4:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
        ctx.set_alpn_protocols(["h2"])
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    while True:
        s, _ = ls.accept()
        threading.Thread(target=serve, args=(s, ctx, out), daemon=True).start()


if __name__ == "__main__":
    main()
