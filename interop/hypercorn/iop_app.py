"""The ASGI application hypercorn serves in the interop suite.

Paths: / (hello, world!), /1m (IOP_DOCROOT/1m), /bigheaders (the
"Name: value" lines of IOP_HEADERS), /close (Connection: close, which
hypercorn's HTTP/1.1 side honours; HTTP/2 has no such header), /echo
(the request body sent back).
"""
import os

DOCROOT = os.environ["IOP_DOCROOT"]
with open(os.path.join(DOCROOT, "1m"), "rb") as f:
    ONE_MIB = f.read()
with open(os.environ["IOP_HEADERS"], "rb") as f:
    BIG_HEADERS = [tuple(line.lower().split(b": ", 1)) for line in f.read().splitlines()
                   if b": " in line]


async def respond(send, body, ctype=b"text/plain", extra=()):
    headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]
    headers.extend(extra)
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def read_body(receive):
    parts = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(parts)


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    # Every request is read to its end first: hypercorn 0.13 starts the
    # next HTTP/1.1 request of a connection only once the app has
    # received the whole body of this one, and closes the connection
    # after the response otherwise (even for a GET).
    body = await read_body(receive)
    path = scope["path"]
    if path == "/":
        await respond(send, b"hello, world!")
    elif path == "/1m":
        await respond(send, ONE_MIB, b"application/octet-stream")
    elif path == "/bigheaders":
        await respond(send, b"hello, world!", extra=BIG_HEADERS)
    elif path == "/close":
        close = [] if scope["http_version"] == "2" else [(b"connection", b"close")]
        await respond(send, b"hello, world!", extra=close)
    elif path == "/echo":
        await respond(send, body, b"application/octet-stream")
    else:
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
