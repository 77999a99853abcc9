/* shb-hostile-tls: the TLS side of the hostile suite. In mode relay it
 * terminates TLS (GnuTLS, a self-signed certificate made at start, one
 * ALPN protocol) and relays the bytes both ways to a plaintext peer on
 * 127.0.0.1:--backend, so every scripted HTTP/1.1 and HTTP/2 misbehaviour
 * also runs over TLS; the other modes break the handshake itself.
 *
 *   shb-hostile-tls --mode MODE [--backend PORT] [--alpn PROTO]
 *                   [--port-file FILE] [--rcvbuf BYTES]
 *
 * --rcvbuf fixes the receive buffer of the client's sockets (the kernel's
 * autotuning would grow it to tcp_rmem's maximum, 32 MiB on Debian 12):
 * a backend that stops reading then stops the client's sends once a
 * known amount is in flight.
 *
 * modes:
 *   relay      TLS, then relay to the backend (a backend reset becomes a
 *              reset, a backend close a close_notify and FIN)
 *   plaintext  answer the ClientHello with a plaintext HTTP/1.1 400
 *   stall      read the ClientHello and never answer
 *   stall-mid  the start of a ServerHello record, then nothing
 *   oversize   a handshake record header announcing 65535 octets
 *   alert      a fatal handshake_failure alert
 *
 * One thread per connection (two when relaying), blocking sockets:
 * back-pressure goes through, as a client that stops reading stops the
 * relay from reading the backend, and the other way round. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#define BUF 16384

enum mode { M_RELAY, M_PLAINTEXT, M_STALL, M_STALL_MID, M_OVERSIZE, M_ALERT };

static const char *const mode_names[] = {
	[M_RELAY] = "relay", [M_PLAINTEXT] = "plaintext", [M_STALL] = "stall",
	[M_STALL_MID] = "stall-mid", [M_OVERSIZE] = "oversize",
	[M_ALERT] = "alert",
};

static enum mode g_mode;
static uint16_t g_backend;
static int g_rcvbuf; /* --rcvbuf: 0, the kernel's autotuning */
static gnutls_datum_t g_alpn;
static gnutls_certificate_credentials_t g_cred;

struct conn {
	int fd, bfd;
	gnutls_session_t s;
	pthread_mutex_t lock;
	int refs;
};

/* ---- certificate ----------------------------------------------------- */

static int make_cred(void)
{
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	unsigned char serial[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
	time_t now = time(NULL);
	int rc;

	if ((rc = gnutls_x509_privkey_init(&key)) < 0)
		return rc;
	if ((rc = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
			GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) < 0 ||
	    (rc = gnutls_x509_crt_init(&crt)) < 0) {
		gnutls_x509_privkey_deinit(key);
		return rc;
	}
	if ((rc = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
	    (rc = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(crt, now - 3600)) < 0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(crt, now + 86400)) < 0 ||
	    (rc = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME,
						0, "localhost", 9)) < 0 ||
	    (rc = gnutls_x509_crt_set_key(crt, key)) < 0 ||
	    (rc = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0)) < 0 ||
	    (rc = gnutls_certificate_allocate_credentials(&g_cred)) < 0 ||
	    (rc = gnutls_certificate_set_x509_key(g_cred, &crt, 1, key)) < 0) {
		gnutls_x509_crt_deinit(crt);
		gnutls_x509_privkey_deinit(key);
		return rc;
	}
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return 0;
}

/* ---- helpers --------------------------------------------------------- */

static int send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int tls_send_all(gnutls_session_t s, const char *p, size_t n)
{
	while (n) {
		ssize_t w = gnutls_record_send(s, p, n);

		if (w == GNUTLS_E_INTERRUPTED || w == GNUTLS_E_AGAIN)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Ends the connection with an RST rather than a FIN. */
static void abort_fd(int fd)
{
	struct linger lg = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	shutdown(fd, SHUT_RDWR);
}

static void drain_until_close(int fd)
{
	char buf[BUF];

	while (recv(fd, buf, sizeof(buf), 0) > 0)
		;
}

/* Waits for the client's first flight (a ClientHello), so what we answer
 * is an answer and not a race with its send. */
static int read_hello(int fd)
{
	char buf[BUF];

	return recv(fd, buf, sizeof(buf), 0) > 0 ? 0 : -1;
}

static void conn_put(struct conn *c)
{
	pthread_mutex_lock(&c->lock);
	int last = --c->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (!last)
		return;
	if (c->s)
		gnutls_deinit(c->s);
	if (c->bfd >= 0)
		close(c->bfd);
	close(c->fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* ---- relay ----------------------------------------------------------- */

/* Backend to client. A backend FIN is a close_notify and FIN; a backend
 * reset (or error) resets the client connection. */
static void *backend_to_client(void *arg)
{
	struct conn *c = arg;
	char buf[BUF];
	ssize_t r;

	while ((r = recv(c->bfd, buf, sizeof(buf), 0)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || tls_send_all(c->s, buf, (size_t)r) < 0)
			break;
	}
	if (r == 0) {
		gnutls_bye(c->s, GNUTLS_SHUT_WR);
		shutdown(c->fd, SHUT_WR);
	} else {
		abort_fd(c->fd);
	}
	shutdown(c->bfd, SHUT_RDWR);
	conn_put(c);
	return NULL;
}

static int connect_backend(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(g_backend),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void relay(struct conn *c)
{
	pthread_t t;
	char buf[BUF];
	ssize_t r;
	int rc;

	if (gnutls_init(&c->s, GNUTLS_SERVER | GNUTLS_NO_TICKETS) < 0 ||
	    gnutls_set_default_priority(c->s) < 0 ||
	    gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, g_cred) < 0 ||
	    (g_alpn.size && gnutls_alpn_set_protocols(c->s, &g_alpn, 1, 0) < 0))
		return;
	gnutls_transport_set_int(c->s, c->fd);
	do {
		rc = gnutls_handshake(c->s);
	} while (rc < 0 && !gnutls_error_is_fatal(rc));
	if (rc < 0)
		return;
	c->bfd = connect_backend();
	if (c->bfd < 0) {
		abort_fd(c->fd);
		return;
	}
	c->refs++;
	if (pthread_create(&t, NULL, backend_to_client, c) != 0) {
		c->refs--;
		return;
	}
	pthread_detach(t);
	/* Client to backend. A client close ends the backend connection. */
	while ((r = gnutls_record_recv(c->s, buf, sizeof(buf))) != 0) {
		if (r == GNUTLS_E_INTERRUPTED || r == GNUTLS_E_AGAIN)
			continue;
		if (r < 0 || send_all(c->bfd, buf, (size_t)r) < 0)
			break;
	}
	shutdown(c->bfd, SHUT_WR);
}

/* ---- the handshake breakers ------------------------------------------ */

static void serve(struct conn *c)
{
	static const char plain[] = "HTTP/1.1 400 Bad Request\r\n"
				    "Content-Length: 0\r\nConnection: close\r\n\r\n";
	/* Handshake records: a ServerHello cut short, one far too long. */
	static const unsigned char mid[] = { 22, 3, 3, 0, 100, 2, 0, 0, 96, 3, 3 };
	static const unsigned char big[] = { 22, 3, 3, 0xff, 0xff, 2, 0, 0xff, 0xfb };
	static const unsigned char alert[] = { 21, 3, 3, 0, 2, 2, 40 };

	switch (g_mode) {
	case M_RELAY:
		relay(c);
		return;
	case M_STALL:
		break;
	case M_PLAINTEXT:
		if (read_hello(c->fd) == 0)
			send_all(c->fd, plain, sizeof(plain) - 1);
		shutdown(c->fd, SHUT_WR);
		break;
	case M_STALL_MID:
		if (read_hello(c->fd) == 0)
			send_all(c->fd, mid, sizeof(mid));
		break;
	case M_OVERSIZE:
		if (read_hello(c->fd) == 0)
			send_all(c->fd, big, sizeof(big));
		break;
	case M_ALERT:
		if (read_hello(c->fd) == 0)
			send_all(c->fd, alert, sizeof(alert));
		shutdown(c->fd, SHUT_WR);
		break;
	}
	drain_until_close(c->fd);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;

	serve(c);
	conn_put(c);
	return NULL;
}

/* ---- main ------------------------------------------------------------ */

static int listen_any(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/* Before listen: accepted sockets inherit it, and their window
	 * scale is chosen for it. */
	if (fd >= 0 && g_rcvbuf &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &g_rcvbuf, sizeof(g_rcvbuf)) < 0) {
		perror("shb-hostile-tls: SO_RCVBUF");
		close(fd);
		return -1;
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 1024) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("shb-hostile-tls: listen");
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int write_port(const char *path, uint16_t port)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", (unsigned)port) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) < 0) {
		fprintf(stderr, "shb-hostile-tls: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, const char **port_file)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "backend", required_argument, NULL, 'b' },
		{ "alpn", required_argument, NULL, 'a' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, have_mode = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
				if (strcmp(optarg, mode_names[i]) == 0) {
					g_mode = (enum mode)i;
					have_mode = 1;
				}
			break;
		case 'b': g_backend = (uint16_t)atoi(optarg); break;
		case 'a':
			g_alpn.data = (unsigned char *)optarg;
			g_alpn.size = (unsigned)strlen(optarg);
			break;
		case 'f': *port_file = optarg; break;
		case 'r':
			g_rcvbuf = atoi(optarg);
			if (g_rcvbuf < 4096) {
				fprintf(stderr, "shb-hostile-tls: --rcvbuf %s: "
					"not a size of at least 4096 bytes\n", optarg);
				return -1;
			}
			break;
		default: return -1;
		}
	}
	if (!have_mode || optind != argc || (g_mode == M_RELAY && !g_backend)) {
		fprintf(stderr, "usage: shb-hostile-tls --mode relay|plaintext|"
			"stall|stall-mid|oversize|alert [--backend PORT] "
			"[--alpn PROTO] [--port-file FILE] [--rcvbuf BYTES]\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL;
	uint16_t port;
	int lfd, rc;

	if (parse_args(argc, argv, &port_file) < 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	if ((rc = make_cred()) < 0) {
		fprintf(stderr, "shb-hostile-tls: certificate: %s\n",
			gnutls_strerror(rc));
		return 1;
	}
	lfd = listen_any(&port);
	if (lfd < 0 || (port_file && write_port(port_file, port) < 0))
		return 1;
	/* Runs until SIGTERM, whose default action ends the process. */
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), one = 1;
		struct conn *c;
		pthread_t t;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE)
				continue;
			perror("shb-hostile-tls: accept");
			return 1;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->bfd = -1;
		c->refs = 1;
		pthread_mutex_init(&c->lock, NULL);
		if (pthread_create(&t, NULL, conn_main, c) != 0) {
			conn_put(c);
			continue;
		}
		pthread_detach(t);
	}
}
