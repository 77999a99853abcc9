// A server that answers every request after a fixed delay, for
// bench/timing.sh: HTTP/1.1 and h2c with prior knowledge on one cleartext
// port (golang.org/x/net/http2/h2c), "hello, world!" after -delay. A
// client that times honestly reports about the delay plus a small
// loopback cost; what it reports beyond that is its own bias.
//
// Built by bench/timing.sh at run time and offline, in GOPATH mode over
// the sources Debian installs (golang-golang-x-net-dev), and run on
// loopback only.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	delay := flag.Duration("delay", time.Millisecond, "time before each response")
	flag.Parse()
	body := []byte("hello, world!")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A timer, not a busy wait: the delay costs no CPU, so the
		// server's answer time stays the same under any load the
		// clients put on the machine.
		time.Sleep(*delay)
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	h2 := &http2.Server{MaxConcurrentStreams: 256}
	srv := &http.Server{Addr: *addr, Handler: h2c.NewHandler(h, h2)}
	log.Fatal(srv.ListenAndServe())
}
