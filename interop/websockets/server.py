"""WebSocket echo server for the interop suite (Debian's python3-websockets):

    server.py PLAIN_PORT TLS_PORT CERT KEY CLOSES

Listens on 127.0.0.1:PLAIN_PORT (ws) and 127.0.0.1:TLS_PORT (wss) and
serves until SIGTERM. Every message is sent back unchanged; on the path
/close the server closes the connection (code 1000) after its 5th answer
instead, so the client sees the close handshake started by the server
and reconnects. When a connection has ended, one line goes to the file
CLOSES: the close code the client sent (1000 after a clean close
handshake; 1006 when the TCP connection ended without one), so that the
suite can check how shb ended every connection."""
import asyncio
import signal
import ssl
import sys

import websockets


CLOSES = None


async def serve_one(ws, path):
    n = 0
    async for msg in ws:
        await ws.send(msg)
        n += 1
        if path == "/close" and n == 5:
            await ws.close(1000, "every 5th message")
            return


async def handler(ws, path=None):
    path = ws.path if path is None else path
    try:
        await serve_one(ws, path)
    finally:
        await ws.wait_closed()
        # One line per write: the suite truncates the file between runs.
        with open(CLOSES, "a") as f:
            f.write("%d\n" % ws.close_code)


async def main():
    global CLOSES
    plain, tls, cert, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    CLOSES = sys.argv[5]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    # No compression (shb offers none), no keep-alive pings, messages up
    # to 2 MiB (the 64 KiB one fits with room).
    opts = dict(compression=None, ping_interval=None, max_size=1 << 21)
    async with websockets.serve(handler, "127.0.0.1", plain, **opts), \
            websockets.serve(handler, "127.0.0.1", tls, ssl=ctx, **opts):
        await stop


if __name__ == "__main__":
    asyncio.run(main())
