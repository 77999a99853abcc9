#!/usr/bin/env python3
"""A loopback TCP server that reads slowly and never answers, for
tests/e2e/goodbye.sh: a client's sends stay in flight, and what the
client writes last is there to see.

Usage: slow_reader.py PORT_FILE LOG RATE
Listens on 127.0.0.1, port chosen by the kernel and written to PORT_FILE.
Reads each connection at most RATE bytes per second (RATE 0: never
reads), with a small receive buffer so that the client's socket cannot
take a whole large send at once. When a connection ends, LOG gets the
line "CONN BYTES TAIL": CONN counts connections from 1, BYTES is what
arrived, TAIL the hex of its last 5 bytes. Stops on SIGTERM."""
import signal
import socket
import sys
import threading
import time

CHUNK = 16384
lock = threading.Lock()


def serve(conn, n, log, rate):
    total, tail = 0, b""
    start = time.monotonic()
    try:
        while True:
            if rate == 0:
                time.sleep(3600)
            data = conn.recv(CHUNK)
            if not data:
                break
            total += len(data)
            tail = (tail + data)[-5:]
            # On schedule, not per chunk: the rate holds however small
            # the reads and however late the wake-ups.
            ahead = start + total / rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
    except OSError:
        pass
    conn.close()
    with lock, open(log, "a") as f:
        f.write("%d %d %s\n" % (n, total, tail.hex()))


def main():
    port_file, log, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    with open(port_file, "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    n = 0
    while True:
        c, _ = s.accept()
        n += 1
        threading.Thread(target=serve, args=(c, n, log, rate), daemon=True).start()


if __name__ == "__main__":
    main()
