#!/usr/bin/env python3
"""The WebSocket example's test server (Debian's python3-websockets).

    echo_server.py PORT_FILE [CERT KEY]

Listens on 127.0.0.1 on a free port (TLS with CERT and KEY), writes the
port to PORT_FILE once it accepts connections, and serves until SIGTERM.
What it does with each message depends on the path of the upgrade:
  /            sends the message back
  /ping        pings the client and waits for its pong, then echoes
  /frag        echoes the message in fragments (1 byte, the rest, and
               the empty final fragment websockets adds)
  /double      sends the message back twice as long
  /close/CODE  closes the connection with CODE instead of answering
"""
import asyncio
import os
import signal
import ssl
import sys

import websockets


async def handler(ws, path=None):
    path = ws.path if path is None else path
    async for msg in ws:
        if path.startswith("/close/"):
            await ws.close(int(path.split("/")[2]), "bye")
            return
        if path == "/ping":
            await (await ws.ping(b"are you there"))
        if path == "/frag" and len(msg) > 1:
            await ws.send([msg[:1], msg[1:]])
        elif path == "/double":
            await ws.send(msg + msg)
        else:
            await ws.send(msg)


async def main():
    port_file = sys.argv[1]
    ctx = None
    if len(sys.argv) > 3:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[2], sys.argv[3])
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    async with websockets.serve(handler, "127.0.0.1", 0, ssl=ctx,
                                compression=None, ping_interval=None,
                                max_size=1 << 21) as server:
        port = server.sockets[0].getsockname()[1]
        with open(port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(port_file + ".tmp", port_file)
        await stop


if __name__ == "__main__":
    asyncio.run(main())
