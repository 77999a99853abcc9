#!/usr/bin/env python3
"""A TCP listener on 127.0.0.1 that records what the first client sends
until one whole TLS ClientHello is in (the TLS records as they came off
the wire), then closes every connection without answering.

  hello_catch.py PORT_FILE OUT_FILE

Writes its port to PORT_FILE once listening, OUT_FILE once the first
ClientHello is whole, and runs until killed.
"""
import os
import socket
import sys


def whole_hello(data):
    """True once data holds the records of one whole handshake message."""
    msg = b""
    off = 0
    while off + 5 <= len(data):
        n = int.from_bytes(data[off + 3:off + 5], "big")
        if off + 5 + n > len(data):
            return False
        msg += data[off + 5:off + 5 + n]
        off += 5 + n
        if len(msg) >= 4 and len(msg) >= 4 + int.from_bytes(msg[1:4], "big"):
            return True
    return False


def main():
    port_file, out_file = sys.argv[1], sys.argv[2]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(tmp, port_file)
    kept = False
    while True:
        c, _ = s.accept()
        c.settimeout(5)
        data = b""
        try:
            while not kept and not whole_hello(data) and len(data) < 65536:
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        if not kept and whole_hello(data):
            with open(out_file + ".tmp", "wb") as f:
                f.write(data)
            os.rename(out_file + ".tmp", out_file)
            kept = True
        c.close()


if __name__ == "__main__":
    main()
