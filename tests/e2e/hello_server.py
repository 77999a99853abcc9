#!/usr/bin/env python3
"""A loopback TCP server for the test protocol fx's hello option
(fx_plugin.c), for tests/e2e/handshake-end.sh: every connection opens
with the client's "HELLO\\r\\n", which the server answers "OK\\r\\n" after
a delay of its own; then each "GET ..." request head gets an empty 200,
and after CLOSE_AFTER of them the server closes the connection, which
makes the client open another. So a run can end while a connection is
still in its handshake, and what the client sends after the OK is there
to see.

Usage: hello_server.py PORT_FILE LOG DELAYS CLOSE_AFTER
Listens on 127.0.0.1, port chosen by the kernel and written to
PORT_FILE. DELAYS: the OK's delay in milliseconds for the 1st, 2nd, ...
connection, comma-separated; -1 never answers; connections past the
list take its last. CLOSE_AFTER 0: the server never closes first. When
a connection ends, LOG gets the line "CONN OK AFTER": CONN counts
connections from 1, OK is 1 when the OK was sent, AFTER what the client
sent after its HELLO and the OK (after the HELLO alone when no OK went;
hex, "-" for nothing). Stops on SIGTERM."""
import signal
import socket
import sys
import threading
import time

lock = threading.Lock()
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


def read_until(conn, buf, mark):
    while mark not in buf:
        data = conn.recv(4096)
        if not data:
            return buf, False
        buf += data
    return buf, True


def read_to_end(conn, buf):
    while True:
        data = conn.recv(4096)
        if not data:
            return buf
        buf += data


def answer(conn, buf, close_after):
    """Answers request heads; returns what came, at the client's close
    or after close_after answers."""
    after, answered = buf, 0
    while True:
        while b"\r\n\r\n" in buf:
            buf = buf.split(b"\r\n\r\n", 1)[1]
            conn.sendall(ANSWER)
            answered += 1
            if answered == close_after:
                return after
        data = conn.recv(4096)
        if not data:
            return after
        after += data
        buf += data


def serve(conn, n, log, delay_ms, close_after):
    ok, after = 0, b""
    try:
        buf, got = read_until(conn, b"", b"HELLO\r\n")
        if got:
            buf = buf.split(b"HELLO\r\n", 1)[1]
            if delay_ms < 0:
                after = read_to_end(conn, buf)
            else:
                time.sleep(delay_ms / 1000.0)
                conn.sendall(b"OK\r\n")
                ok = 1
                after = answer(conn, buf, close_after)
    except OSError:
        pass
    conn.close()
    with lock, open(log, "a") as f:
        f.write("%d %d %s\n" % (n, ok, after.hex() or "-"))


def main():
    port_file, log = sys.argv[1], sys.argv[2]
    delays = [int(d) for d in sys.argv[3].split(",")]
    close_after = int(sys.argv[4])
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    with open(port_file, "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    n = 0
    while True:
        c, _ = s.accept()
        n += 1
        d = delays[min(n, len(delays)) - 1]
        threading.Thread(target=serve, args=(c, n, log, d, close_after),
                         daemon=True).start()


if __name__ == "__main__":
    main()
