// Go's net/http (and golang.org/x/net/http2) for the interop suite:
// built by interop/go/server.sh at run time, offline (GOPATH mode over
// Debian's golang-golang-x-net-dev), and run on loopback.
//
// Listeners, each on its own port (flags):
//
//	-plain  HTTP/1.1 and h2c with prior knowledge (x/net/http2/h2c)
//	-tls    HTTP/1.1 and h2 over TLS (ALPN)
//	-streams-plain, -streams-tls  the same, advertising
//	        SETTINGS_MAX_CONCURRENT_STREAMS = -max-streams
//	-window-plain, -window-tls    the same, advertising
//	        SETTINGS_INITIAL_WINDOW_SIZE = -window (request bodies)
//
// Paths: / (hello, world!), /1m (the file -docroot/1m), /bigheaders (the
// headers of -headers, "Name: value" per line), /close ("Connection:
// close": h1 closes, h2 sends GOAWAY), /goaway (like /, with "Connection:
// close" on every -goaway-after-th request of a connection), /echo (the
// request body sent back).
package main

import (
	"bufio"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
)

type header struct{ name, value string }

var (
	docroot     = flag.String("docroot", "", "directory holding 1m")
	headersFile = flag.String("headers", "", "response headers of /bigheaders")
	certFile    = flag.String("cert", "", "TLS certificate")
	keyFile     = flag.String("key", "", "TLS private key")
	plain       = flag.String("plain", "", "HTTP/1.1 and h2c address")
	tlsAddr     = flag.String("tls", "", "HTTP/1.1 and h2 over TLS address")
	strPlain    = flag.String("streams-plain", "", "h2c address with few streams")
	strTLS      = flag.String("streams-tls", "", "h2 address with few streams")
	winPlain    = flag.String("window-plain", "", "h2c address with a small window")
	winTLS      = flag.String("window-tls", "", "h2 address with a small window")
	maxStreams  = flag.Uint("max-streams", 4, "SETTINGS_MAX_CONCURRENT_STREAMS")
	window      = flag.Int("window", 1024, "SETTINGS_INITIAL_WINDOW_SIZE")
	goawayAfter = flag.Int("goaway-after", 5, "requests per connection on /goaway")

	bigHeaders []header
	oneMiB     []byte
	// Requests to /goaway per connection (client address: unique while
	// the connection lasts).
	perConn   sync.Map
	perConnMu sync.Mutex
)

func readHeaders(path string) []header {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var hs []header
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ": ")
		if ok {
			hs = append(hs, header{name, value})
		}
	}
	return hs
}

func hello(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	io.WriteString(w, body)
}

func mux() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		hello(w, "hello, world!")
	})
	m.HandleFunc("/1m", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(len(oneMiB)))
		w.Write(oneMiB)
	})
	m.HandleFunc("/bigheaders", func(w http.ResponseWriter, r *http.Request) {
		for _, h := range bigHeaders {
			w.Header().Set(h.name, h.value)
		}
		hello(w, "hello, world!")
	})
	m.HandleFunc("/close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		hello(w, "hello, world!")
	})
	m.HandleFunc("/goaway", func(w http.ResponseWriter, r *http.Request) {
		v, _ := perConn.LoadOrStore(r.RemoteAddr, new(int))
		n := v.(*int)
		perConnMu.Lock()
		*n++
		last := *n%*goawayAfter == 0
		perConnMu.Unlock()
		if last {
			w.Header().Set("Connection", "close")
		}
		hello(w, "hello, world!")
	})
	// Read whole, then sent back: Go 1.19's HTTP/1 server cannot read a
	// request body once the response has started.
	m.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body)
	})
	return m
}

// serve starts one listener: cleartext HTTP/1.1 + h2c, or TLS with ALPN
// h2 and http/1.1, with the HTTP/2 settings of h2s.
func serve(addr string, useTLS bool, h2s *http2.Server) {
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux()}
	if useTLS {
		cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			log.Fatal(err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		if err := http2.ConfigureServer(srv, h2s); err != nil {
			log.Fatal(err)
		}
		go func() { log.Fatal(srv.Serve(tls.NewListener(ln, srv.TLSConfig))) }()
		return
	}
	srv.Handler = h2c.NewHandler(srv.Handler, h2s)
	go func() { log.Fatal(srv.Serve(ln)) }()
}

func main() {
	flag.Parse()
	var err error
	bigHeaders = readHeaders(*headersFile)
	if oneMiB, err = os.ReadFile(*docroot + "/1m"); err != nil {
		log.Fatal(err)
	}
	// Stock settings apart from the count of streams, which the default
	// (250) would leave below no client.
	base := func() *http2.Server { return &http2.Server{MaxConcurrentStreams: 256} }
	serve(*plain, false, base())
	serve(*tlsAddr, true, base())
	few := func() *http2.Server { return &http2.Server{MaxConcurrentStreams: uint32(*maxStreams)} }
	serve(*strPlain, false, few())
	serve(*strTLS, true, few())
	// The stream window is what a client must respect when it sends a
	// body; the connection's cannot go below 64 KB - 1 in x/net.
	small := func() *http2.Server {
		return &http2.Server{MaxConcurrentStreams: 256, MaxUploadBufferPerStream: int32(*window)}
	}
	serve(*winPlain, false, small())
	serve(*winTLS, true, small())
	log.Printf("listening")
	select {}
}
