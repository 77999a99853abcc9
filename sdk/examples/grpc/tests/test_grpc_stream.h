/* The gRPC example's kit tests of streaming calls (call=server-stream,
 * client-stream, bidi), run by test_grpc.c after its own. */
#ifndef TEST_GRPC_STREAM_H
#define TEST_GRPC_STREAM_H

/* Every test of streaming calls; failures counted in grpc_script.h's. */
void test_grpc_stream(void);

#endif
