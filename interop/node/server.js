// Node's http and http2 modules for the interop suite, run by
// interop/node/server.sh on loopback. Arguments are NAME=VALUE:
//
//   docroot headers cert key   files (headers: "Name: value" per line)
//   h1        HTTP/1.1 port (node:http)
//   h2c       h2c port, prior knowledge (http2.createServer)
//   tls       HTTP/1.1 and h2 over TLS (createSecureServer, allowHTTP1)
//   streams_h2c streams_tls   the same, SETTINGS_MAX_CONCURRENT_STREAMS =
//                             max_streams
//   window_h2c window_tls     the same, SETTINGS_INITIAL_WINDOW_SIZE =
//                             window
//   goaway_after              requests per HTTP/2 session on /goaway
//
// Paths: / (hello, world!), /1m, /bigheaders (48 KB of headers), /close
// (HTTP/1.1: Connection: close; HTTP/2: the session is closed after the
// response, a GOAWAY), /goaway (HTTP/2: the session is closed after every
// goaway_after-th request), /echo (the request body sent back).
'use strict';
const fs = require('fs');
const http = require('http');
const http2 = require('http2');

const arg = {};
for (const a of process.argv.slice(2)) {
	const i = a.indexOf('=');
	arg[a.slice(0, i)] = a.slice(i + 1);
}
const oneMiB = fs.readFileSync(arg.docroot + '/1m');
const bigHeaders = fs.readFileSync(arg.headers, 'latin1').split('\n')
	.filter((l) => l.includes(': ')).map((l) => l.split(': '));
const goawayAfter = Number(arg.goaway_after || 5);

function send(res, type, body) {
	res.setHeader('content-type', type);
	res.setHeader('content-length', body.length);
	res.end(body);
}

// After the response is out: a graceful close sends GOAWAY and lets the
// streams already open finish. It waits for the stream's 'close' and
// then for the next turn of the loop: Node 18 (Debian 12's), closing at
// the response's 'finish', destroyed a TLS session before its last
// frames (each stream's END_STREAM, the GOAWAY) reached the socket, and
// the client saw the connection end with every stream unfinished.
function closeSession(res) {
	const session = res.stream && res.stream.session;
	if (session && !session.closed)
		res.stream.on('close', () => setImmediate(() => {
			if (!session.closed)
				session.close();
		}));
}

function handler(req, res) {
	const h2 = req.httpVersionMajor === 2;
	switch (req.url) {
	case '/':
		return send(res, 'text/plain', 'hello, world!');
	case '/1m':
		return send(res, 'application/octet-stream', oneMiB);
	case '/bigheaders':
		for (const [name, value] of bigHeaders)
			res.setHeader(name, value);
		return send(res, 'text/plain', 'hello, world!');
	case '/close':
		if (h2)
			closeSession(res);
		else
			res.setHeader('connection', 'close');
		return send(res, 'text/plain', 'hello, world!');
	case '/goaway':
		if (h2) {
			const s = req.stream.session;
			s.iopRequests = (s.iopRequests || 0) + 1;
			if (s.iopRequests % goawayAfter === 0)
				closeSession(res);
		}
		return send(res, 'text/plain', 'hello, world!');
	case '/echo': {
		const parts = [];
		req.on('data', (d) => parts.push(d));
		req.on('end', () => send(res, 'application/octet-stream', Buffer.concat(parts)));
		return;
	}
	default:
		res.statusCode = 404;
		return send(res, 'text/plain', 'not found');
	}
}

const tls = { key: fs.readFileSync(arg.key), cert: fs.readFileSync(arg.cert) };
// Stock settings (Node allows any number of streams); the cases of the
// suite change one each.
function listen(port, secure, settings) {
	if (!port)
		return;
	// maxSessionMemory (10 MB by default) counts the responses queued
	// for the socket: 16 streams of /1m to a client that opens wide
	// windows (shb, h2load) pass it, and Node resets the streams with
	// ENHANCE_YOUR_CALM.
	const opts = { settings: settings || {}, maxSessionMemory: 64 };
	const srv = secure
		? http2.createSecureServer({ ...tls, ...opts, allowHTTP1: true }, handler)
		: http2.createServer(opts, handler);
	// No idle timeout: no server ends a connection on its own mid-run.
	srv.setTimeout(0);
	// The HTTP/1.1 side of allowHTTP1 reads this like node:http does.
	srv.keepAliveTimeout = 300000;
	srv.listen(Number(port), '127.0.0.1');
}

if (arg.h1) {
	const srv = http.createServer(handler);
	srv.keepAliveTimeout = 300000;
	srv.listen(Number(arg.h1), '127.0.0.1');
}
listen(arg.h2c, false);
listen(arg.tls, true);
const few = { maxConcurrentStreams: Number(arg.max_streams || 4) };
listen(arg.streams_h2c, false, few);
listen(arg.streams_tls, true, few);
const small = { initialWindowSize: Number(arg.window || 1024) };
listen(arg.window_h2c, false, small);
listen(arg.window_tls, true, small);
