// gRPC server for the interop suite on Go's google.golang.org/grpc
// (Debian's golang-google-grpc-dev), built at run time by server.sh.
// No protoc and no generated code: a codec that passes message bytes
// through, and one handler for every method (UnknownServiceHandler):
//
//	/shb.interop.Echo/Echo     unary: returns the request message unchanged
//	/shb.interop.Echo/Fail     unary: fails with INVALID_ARGUMENT (3), "fail on purpose"
//	/shb.interop.Echo/Stream   server-streaming: the request message 10 times
//	/shb.interop.Echo/Collect  client-streaming: one message, the request messages joined
//	/shb.interop.Echo/Chat     bidirectional: each request message back as it arrives
//
// Serves h2c on -plain and TLS (ALPN h2) on -tls until SIGTERM.
package main

import (
	"crypto/tls"
	"flag"
	"io"
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

// handle serves one call of any method; the method's name says its kind.
func handle(srv interface{}, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	switch method {
	case "/shb.interop.Echo/Collect":
		return collect(stream)
	case "/shb.interop.Echo/Chat":
		return chat(stream)
	}
	var msg []byte
	if err := stream.RecvMsg(&msg); err != nil {
		return err
	}
	switch method {
	case "/shb.interop.Echo/Echo":
		return stream.SendMsg(&msg)
	case "/shb.interop.Echo/Fail":
		return status.Error(codes.InvalidArgument, "fail on purpose")
	case "/shb.interop.Echo/Stream":
		for i := 0; i < 10; i++ {
			if err := stream.SendMsg(&msg); err != nil {
				return err
			}
		}
		return nil
	}
	return status.Errorf(codes.Unimplemented, "no method %s", method)
}

// collect reads every request message, then answers them joined.
func collect(stream grpc.ServerStream) error {
	var all []byte
	for {
		var msg []byte
		err := stream.RecvMsg(&msg)
		if err == io.EOF {
			return stream.SendMsg(&all)
		}
		if err != nil {
			return err
		}
		all = append(all, msg...)
	}
}

// chat echoes each request message as it arrives.
func chat(stream grpc.ServerStream) error {
	for {
		var msg []byte
		err := stream.RecvMsg(&msg)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.SendMsg(&msg); err != nil {
			return err
		}
	}
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
