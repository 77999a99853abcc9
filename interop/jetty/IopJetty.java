// Jetty 9.4 for the shb interop suite: connectors and a handler, set up
// inside the Jetty distribution's own server (start.jar, a private
// jetty.base) by iop.xml, which calls IopJetty.configure with the path of
// the iop.properties that server.sh writes. Compiled by server.sh at run
// time against the jars Debian installs (jetty9).
//
// Connectors (127.0.0.1 only):
//   plain         HTTP/1.1, and h2c (prior knowledge or Upgrade)
//   tls           HTTP/1.1 and h2 over TLS (ALPN built into Java 17)
//   streams.*     the same two kinds with SETTINGS_MAX_CONCURRENT_STREAMS 4
//   window.*      the same two kinds with SETTINGS_INITIAL_WINDOW_SIZE 1024
// Endpoints (every request body is read to its end first):
//   /            "hello, world!"
//   /1m          the 1 MiB file
//   /bigheaders  "hello, world!" after 48 headers of 1000 bytes
//   /close       HTTP/1.1: "Connection: close"; HTTP/2 (which has no
//                Connection header): GOAWAY after the response
//   /goaway      like /close on every 5th request of a connection
//   /echo        "ok"
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import javax.servlet.ServletOutputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.HTTP2Connection;
import org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.AbstractHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;

public class IopJetty extends AbstractHandler {
	private static final byte[] HELLO = "hello, world!".getBytes(StandardCharsets.US_ASCII);
	private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);
	private static final int GOAWAY_EVERY = 5;

	private final byte[] oneMiB;
	private final List<String[]> bigHeaders = new ArrayList<>();
	// Requests to /goaway per connection; an entry goes when it fires.
	private final Map<Connection, Integer> goawayCount = new ConcurrentHashMap<>();

	private IopJetty(Properties p) throws IOException {
		oneMiB = Files.readAllBytes(Paths.get(p.getProperty("docroot"), "1m"));
		for (String line : Files.readAllLines(Paths.get(p.getProperty("headers")))) {
			int colon = line.indexOf(": ");
			if (colon > 0)
				bigHeaders.add(new String[] { line.substring(0, colon), line.substring(colon + 2) });
		}
	}

	// Called once from iop.xml, on the distribution's main thread, before
	// the server starts.
	public static void configure(Server server, String propsPath) throws IOException {
		Properties p = new Properties();
		try (InputStream in = new FileInputStream(propsPath)) {
			p.load(in);
		}
		preEncoders();
		HttpConfiguration http = new HttpConfiguration();
		// About 48 KB of response headers; the stock limit is 8 KB.
		http.setResponseHeaderSize(128 * 1024);
		http.setRequestHeaderSize(64 * 1024);
		http.setSendServerVersion(false);
		HttpConfiguration https = new HttpConfiguration(http);
		// The certificate is for localhost and 127.0.0.1; shb sends no
		// SNI for an IP address, which Jetty would otherwise refuse.
		SecureRequestCustomizer src = new SecureRequestCustomizer();
		src.setSniHostCheck(false);
		https.addCustomizer(src);

		SslContextFactory.Server ssl = new SslContextFactory.Server();
		ssl.setKeyStorePath(p.getProperty("keystore"));
		ssl.setKeyStorePassword(p.getProperty("keystore.password"));
		ssl.setKeyStoreType("PKCS12");
		ssl.setSniRequired(false);

		addPair(server, http, https, ssl, p, "plain", "tls", 256, 65535);
		addPair(server, http, https, ssl, p, "streams.plain", "streams.tls", 4, 65535);
		addPair(server, http, https, ssl, p, "window.plain", "window.tls", 256, 1024);
		server.setHandler(new IopJetty(p));
	}

	// PreEncodedHttpField finds its encoders (HTTP/1.1, and HPACK for
	// HTTP/2) with ServiceLoader through the thread's context class
	// loader, once, when the class is first used. Left to itself that
	// happens later, on a thread whose context loader does not see the
	// HPACK jar of the module (only HTTP/1.1's encoder is found), and
	// every HTTP/2 response with a Date header then fails ("Could not
	// hpack encode"). Load it here, through the loader that has the
	// module's jars.
	private static void preEncoders() {
		Thread t = Thread.currentThread();
		ClassLoader saved = t.getContextClassLoader();
		t.setContextClassLoader(IopJetty.class.getClassLoader());
		try {
			new PreEncodedHttpField(HttpHeader.SERVER, "shb-interop");
		} finally {
			t.setContextClassLoader(saved);
		}
	}

	// A cleartext connector (h1, h2c) and a TLS connector (h1, h2) whose
	// HTTP/2 side announces STREAMS and WINDOW.
	private static void addPair(Server server, HttpConfiguration http, HttpConfiguration https,
			SslContextFactory.Server ssl, Properties p, String plainKey, String tlsKey,
			int streams, int window) {
		HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(http);
		tune(h2c, streams, window);
		add(server, p, plainKey, new HttpConnectionFactory(http), h2c);

		HTTP2ServerConnectionFactory h2 = new HTTP2ServerConnectionFactory(https);
		tune(h2, streams, window);
		ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
		alpn.setDefaultProtocol("http/1.1");
		add(server, p, tlsKey, new SslConnectionFactory(ssl, alpn.getProtocol()), alpn, h2,
				new HttpConnectionFactory(https));
	}

	private static void tune(AbstractHTTP2ServerConnectionFactory f, int streams, int window) {
		f.setMaxConcurrentStreams(streams);
		f.setInitialStreamRecvWindow(window);
		// Stock idle limits would end connections mid-run.
		f.setStreamIdleTimeout(300_000);
	}

	private static void add(Server server, Properties p, String key, ConnectionFactory... factories) {
		ServerConnector c = new ServerConnector(server, 1, 1, factories);
		c.setHost("127.0.0.1");
		c.setPort(Integer.parseInt(p.getProperty(key)));
		c.setIdleTimeout(300_000);
		server.addConnector(c);
	}

	// [a Jetty worker thread] One request; Jetty owns every argument.
	@Override
	public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
			throws IOException {
		base.setHandled(true);
		// The whole body first: /echo answers only once it has it all.
		InputStream in = req.getInputStream();
		byte[] buf = new byte[65536];
		while (in.read(buf) >= 0) {
		}
		byte[] body = HELLO;
		boolean close = false;
		switch (target) {
		case "/":
			break;
		case "/1m":
			body = oneMiB;
			break;
		case "/bigheaders":
			for (String[] h : bigHeaders)
				resp.addHeader(h[0], h[1]);
			break;
		case "/close":
			close = true;
			break;
		case "/goaway":
			close = countGoaway(base);
			break;
		case "/echo":
			body = OK;
			break;
		default:
			resp.setStatus(404);
			body = "not found".getBytes(StandardCharsets.US_ASCII);
		}
		HTTP2Connection h2 = http2(base);
		if (close && h2 == null)
			resp.setHeader("Connection", "close");
		resp.setContentType(body == OK || body == HELLO ? "text/plain" : "application/octet-stream");
		resp.setContentLength(body.length);
		ServletOutputStream out = resp.getOutputStream();
		out.write(body);
		if (close && h2 != null) {
			// The response is complete first; then GOAWAY, with the
			// highest stream id Jetty has taken as the last one.
			base.getResponse().closeOutput();
			h2.getSession().close(ErrorCode.NO_ERROR.code, "close", Callback.NOOP);
		}
	}

	private boolean countGoaway(Request base) {
		Connection c = base.getHttpChannel().getEndPoint().getConnection();
		int n = goawayCount.merge(c, 1, Integer::sum);
		if (n < GOAWAY_EVERY)
			return false;
		goawayCount.remove(c);
		return true;
	}

	private static HTTP2Connection http2(Request base) {
		Connection c = base.getHttpChannel().getEndPoint().getConnection();
		return c instanceof HTTP2Connection ? (HTTP2Connection) c : null;
	}
}
