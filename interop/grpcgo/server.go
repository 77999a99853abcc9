// gRPC server for the interop suite on Go's google.golang.org/grpc
// (Debian's golang-google-grpc-dev), built at run time by server.sh.
// No protoc and no generated code: a codec that passes message bytes
// through, and one handler for every method (UnknownServiceHandler):
//
//	/shb.interop.Echo/Echo  returns the request message unchanged
//	/shb.interop.Echo/Fail  fails with INVALID_ARGUMENT (3), "fail on purpose"
//
// Serves h2c on -plain and TLS (ALPN h2) on -tls until SIGTERM.
package main

import (
	"crypto/tls"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
)

// rawCodec: a message is the bytes on the wire, held in a *[]byte.
type rawCodec struct{}

func (rawCodec) Marshal(v interface{}) ([]byte, error) { return *v.(*[]byte), nil }

func (rawCodec) Unmarshal(data []byte, v interface{}) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}

// Name and String: grpc 1.33's CustomCodec takes the older grpc.Codec,
// which names itself with String.
func (rawCodec) Name() string { return "raw" }

func (rawCodec) String() string { return "raw" }

// handle serves one unary call of any method.
func handle(srv interface{}, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	var msg []byte
	if err := stream.RecvMsg(&msg); err != nil {
		return err
	}
	switch method {
	case "/shb.interop.Echo/Echo":
		return stream.SendMsg(&msg)
	case "/shb.interop.Echo/Fail":
		return status.Error(codes.InvalidArgument, "fail on purpose")
	}
	return status.Errorf(codes.Unimplemented, "no method %s", method)
}

func serve(addr string, opts ...grpc.ServerOption) *grpc.Server {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	// Messages up to 2 MiB each way (the 1 MiB one fits with room).
	opts = append(opts, grpc.CustomCodec(rawCodec{}), grpc.UnknownServiceHandler(handle),
		grpc.MaxRecvMsgSize(2<<20), grpc.MaxSendMsgSize(2<<20))
	s := grpc.NewServer(opts...)
	go func() { log.Fatal(s.Serve(ln)) }()
	return s
}

func main() {
	plain := flag.String("plain", "127.0.0.1:0", "h2c address")
	tlsAddr := flag.String("tls", "127.0.0.1:0", "TLS address")
	cert := flag.String("cert", "", "certificate (PEM)")
	key := flag.String("key", "", "private key (PEM)")
	flag.Parse()
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		log.Fatal(err)
	}
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pair}})
	a := serve(*plain)
	b := serve(*tlsAddr, grpc.Creds(creds))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	a.Stop()
	b.Stop()
}
