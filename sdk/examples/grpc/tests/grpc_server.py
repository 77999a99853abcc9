"""A gRPC server for the example's tests: service shb.test.Echo with
methods of every kind on raw bytes (no protoc, no generated code):

  /shb.test.Echo/Echo     unary: the request message unchanged (status OK)
  /shb.test.Echo/Fail     unary: INVALID_ARGUMENT (3), "fail on purpose"
  /shb.test.Echo/Stream   server-streaming: the request message 3 times
  /shb.test.Echo/Collect  client-streaming: one message, the request
                          messages joined
  /shb.test.Echo/Chat     bidirectional: each request message back as it
                          arrives
  /shb.test.Echo/Forever  server-streaming: the request message every
                          10 ms until the client goes away

Listens on 127.0.0.1 (an ephemeral port unless one is given), writes the
port to the file named by --port-file once it listens, and serves until
killed. Cleartext only (h2c with prior knowledge, as gRPC does)."""
import argparse
import os
import signal
import sys
import time
from concurrent import futures

import grpc


def echo(request, context):
    return request


def fail(request, context):
    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "fail on purpose")


def stream(request, context):
    for _ in range(3):
        yield request


def collect(requests, context):
    return b"".join(requests)


def chat(requests, context):
    for m in requests:
        yield m


def forever(request, context):
    while context.is_active():
        yield request
        time.sleep(0.01)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    args = ap.parse_args()

    # request_deserializer / response_serializer None: the handlers see
    # and return the message bytes as they are on the wire.
    handlers = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "Fail": grpc.unary_unary_rpc_method_handler(fail),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
        "Collect": grpc.stream_unary_rpc_method_handler(collect),
        "Chat": grpc.stream_stream_rpc_method_handler(chat),
        "Forever": grpc.unary_stream_rpc_method_handler(forever),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=32))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("shb.test.Echo", handlers),))
    port = server.add_insecure_port("127.0.0.1:%d" % args.port)
    if port == 0:
        print("grpc_server: cannot listen on 127.0.0.1:%d" % args.port,
              file=sys.stderr)
        return 1
    server.start()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, args.port_file)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()
    return 0


if __name__ == "__main__":
    sys.exit(main())
