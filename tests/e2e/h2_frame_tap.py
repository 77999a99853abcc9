#!/usr/bin/env python3
"""A loopback TCP relay in front of an HTTP/2 server that logs the frames
on each connection, for tests that check what a server does not log
(nghttpd -v prints no PRIORITY_UPDATE it receives) or that need the
order of the frames on the wire (which stream's DATA went out first).

Usage: h2_frame_tap.py LISTEN_PORT SERVER_PORT LOG [SERVER_LOG]
LOG gets one line per client frame, in order, per connection:
  CONN TYPE STREAM LENGTH [PRIORITIZED_STREAM VALUE]
with TYPE as a number, and for PRIORITY_UPDATE (0x10) the payload's
prioritized stream id and field value. SERVER_LOG, if given, gets one
line per server frame, in the order they came on the wire:
  CONN TYPE STREAM LENGTH FLAGS
(all decimal). CONN counts accepted connections from 1. A frame is
logged (and flushed) before its last byte is forwarded, so a log is
complete once the peer has everything. The relay forwards bytes
unchanged both ways; it stops on SIGTERM."""
import socket
import sys
import threading

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
lock = threading.Lock()


def client_line(conn, ftype, sid, n, payload):
    line = "%d %d %d %d" % (conn, ftype, sid, n)
    if ftype == 0x10 and n >= 4:
        pid = int.from_bytes(payload[0:4], "big") & 0x7FFFFFFF
        line += " %d %s" % (pid, payload[4:].decode("ascii", "replace"))
    return line


def server_line(conn, ftype, sid, n, flags):
    return "%d %d %d %d %d" % (conn, ftype, sid, n, flags)


class Parser:
    """Splits one direction's byte stream into frames; skip: the bytes
    before the first frame (the client's connection preface)."""

    def __init__(self, conn, skip, client):
        self.conn, self.skip, self.client = conn, skip, client
        self.buf = bytearray()

    def feed(self, data):
        """The log lines of the frames that DATA completes."""
        self.buf += data
        if self.skip:
            if len(self.buf) < self.skip:
                return []
            del self.buf[:self.skip]
            self.skip = 0
        lines, off, buf = [], 0, self.buf
        while len(buf) - off >= 9:
            n = int.from_bytes(buf[off:off + 3], "big")
            if len(buf) - off < 9 + n:
                break
            ftype, flags = buf[off + 3], buf[off + 4]
            sid = int.from_bytes(buf[off + 5:off + 9], "big") & 0x7FFFFFFF
            if self.client:
                payload = bytes(buf[off + 9:off + 9 + n]) if ftype == 0x10 else b""
                lines.append(client_line(self.conn, ftype, sid, n, payload))
            else:
                lines.append(server_line(self.conn, ftype, sid, n, flags))
            off += 9 + n
        del buf[:off]
        return lines


def pump(src, dst, log=None, parser=None):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if log is not None:
                lines = parser.feed(data)
                if lines:
                    with lock:
                        log.write("\n".join(lines) + "\n")
                        log.flush()
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    listen_port, server_port, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    log = open(path, "w")
    slog = open(sys.argv[4], "w") if len(sys.argv) > 4 else None
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", listen_port))
    ls.listen(64)
    conn = 0
    while True:
        c, _ = ls.accept()
        s = socket.create_connection(("127.0.0.1", server_port))
        for x in (c, s):
            x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn += 1
        threading.Thread(target=pump, args=(c, s, log, Parser(conn, len(PREFACE), True)),
                         daemon=True).start()
        threading.Thread(target=pump, args=(s, c, slog, Parser(conn, 0, False)),
                         daemon=True).start()


if __name__ == "__main__":
    main()
