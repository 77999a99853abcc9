#!/usr/bin/env python3
"""A line protocol server for run_1_3.sh: every "PING\\r\\n" is answered
"+PONG\\r\\n", except every tenth, answered "-ERR busy\\r\\n"; pipelined
lines are answered in order. Listens on 127.0.0.1, port 0; writes its port
to the file given, and on SIGTERM the number of lines answered to
stderr."""
import asyncio
import signal
import sys

answered = 0


async def serve(reader, writer):
    global answered
    while True:
        line = await reader.readline()
        if not line:
            break
        if line != b"PING\r\n":
            writer.write(b"-ERR unknown command\r\n")
        else:
            answered += 1
            writer.write(b"-ERR busy\r\n" if answered % 10 == 0 else b"+PONG\r\n")
        await writer.drain()
    writer.close()


async def main(port_file):
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    server.close()
    print("answered %d" % answered, file=sys.stderr)


asyncio.run(main(sys.argv[1]))
