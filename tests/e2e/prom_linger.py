#!/usr/bin/env python3
"""A remote-write receiver that takes every push (204 No Content) and then
keeps the connection open, ignoring the client's Connection: close, until
the client closes it. Used by tests/e2e/prom.sh: the prom reporter must
take the 204 and go on, not wait for the receiver to close.

  prom_linger.py PORT_FILE"""
import os
import socket
import sys
import threading


def serve(conn):
    with conn:
        data = b''
        while b'\r\n\r\n' not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b'\r\n\r\n')
        length = 0
        for line in head.split(b'\r\n')[1:]:
            name, _, value = line.partition(b':')
            if name.strip().lower() == b'content-length':
                length = int(value)
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return
            body += chunk
        conn.sendall(b'HTTP/1.1 204 No Content\r\n\r\n')
        while conn.recv(65536):  # until the client closes
            pass


def main():
    srv = socket.socket()
    srv.bind(('127.0.0.1', 0))
    srv.listen(16)
    with open(sys.argv[1] + '.tmp', 'w') as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(sys.argv[1] + '.tmp', sys.argv[1])
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == '__main__':
    main()
