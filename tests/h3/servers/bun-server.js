// Bun HTTP server for the HTTP/3 tests, started by bun.sh: h1 and h2
// (ALPN) on TCP and h3 on UDP at the same port number.
// Environment: SHB_H3_PORT, SHB_H3_HOST, SHB_H3_CERT, SHB_H3_KEY and
// SHB_H3_DOCROOT (the directory holding the 1 MiB file "1m").
// Endpoints: / (13 bytes "hello, world!"), /1m (the file, 1 MiB),
// /echo (reads the whole request body, answers its length in decimal).
const env = process.env;
const oneMiB = new Uint8Array(await Bun.file(env.SHB_H3_DOCROOT + "/1m").arrayBuffer());
const text = { "content-type": "text/plain" };

const server = Bun.serve({
	hostname: env.SHB_H3_HOST || "127.0.0.1",
	port: Number(env.SHB_H3_PORT),
	tls: { cert: Bun.file(env.SHB_H3_CERT), key: Bun.file(env.SHB_H3_KEY) },
	http2: true,
	http3: true,
	idleTimeout: 255, // the largest value Bun accepts (seconds)
	async fetch(req) {
		const path = new URL(req.url).pathname;
		if (path === "/")
			return new Response("hello, world!", { headers: text });
		if (path === "/1m")
			return new Response(oneMiB, { headers: { "content-type": "application/octet-stream" } });
		if (path === "/echo") {
			const body = await req.arrayBuffer();
			return new Response(String(body.byteLength), { headers: text });
		}
		return new Response("not found", { status: 404, headers: text });
	},
});
console.log(`listening on ${server.hostname}:${server.port}`);
