#!/usr/bin/env python3
"""A TCP origin that never completes a connect: it listens on 127.0.0.1
with a backlog of 0, never accepts, and fills its own accept queue with
one connection, so the kernel drops every further SYN and a client's
connect stays pending (until the client's own connect timeout).

    full_backlog.py --port-file FILE

Writes the port to FILE once the queue is full; runs until SIGTERM."""
import argparse
import os
import signal
import socket
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    a = ap.parse_args()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.bind(("127.0.0.1", 0))
    ls.listen(0)
    port = ls.getsockname()[1]
    # Linux queues backlog + 1 connections: this one fills the queue.
    filler = socket.create_connection(("127.0.0.1", port), timeout=5)
    # A second connect must now stay pending: the queue is full.
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(0.3)
    try:
        probe.connect(("127.0.0.1", port))
        sys.exit("the accept queue did not fill: a second connect completed")
    except socket.timeout:
        pass
    probe.close()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{port}\n")
    os.replace(tmp, a.port_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
