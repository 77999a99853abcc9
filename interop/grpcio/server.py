"""gRPC server for the interop suite (Debian's python3-grpcio):

    server.py PLAIN_PORT TLS_PORT CERT KEY

Service shb.interop.Echo, methods of every kind on raw bytes (a generic
handler: no protoc, no generated code), on 127.0.0.1:PLAIN_PORT (h2c)
and 127.0.0.1:TLS_PORT (TLS, ALPN h2), until SIGTERM:

  /shb.interop.Echo/Echo     unary: returns the request message unchanged
  /shb.interop.Echo/Fail     unary: fails with INVALID_ARGUMENT (3), "fail on purpose"
  /shb.interop.Echo/Stream   server-streaming: the request message 10 times
  /shb.interop.Echo/Collect  client-streaming: one message, the request messages joined
  /shb.interop.Echo/Chat     bidirectional: each request message back as it arrives
"""
import signal
import sys
from concurrent import futures

import grpc


def echo(request, context):
    return request


def fail(request, context):
    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "fail on purpose")


def stream(request, context):
    for _ in range(10):
        yield request


def collect(requests, context):
    return b"".join(requests)


def chat(requests, context):
    for m in requests:
        yield m


def main():
    plain, tls, cert, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    handlers = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "Fail": grpc.unary_unary_rpc_method_handler(fail),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
        "Collect": grpc.stream_unary_rpc_method_handler(collect),
        "Chat": grpc.stream_stream_rpc_method_handler(chat),
    }
    # Messages up to 2 MiB each way (the 1 MiB one fits with room).
    opts = [("grpc.max_receive_message_length", 1 << 21),
            ("grpc.max_send_message_length", 1 << 21)]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=opts)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("shb.interop.Echo", handlers),))
    with open(cert, "rb") as c, open(key, "rb") as k:
        creds = grpc.ssl_server_credentials([(k.read(), c.read())])
    if server.add_insecure_port("127.0.0.1:%d" % plain) != plain or \
            server.add_secure_port("127.0.0.1:%d" % tls, creds) != tls:
        print("server.py: cannot listen on %d and %d" % (plain, tls), file=sys.stderr)
        return 1
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()
    return 0


if __name__ == "__main__":
    sys.exit(main())
