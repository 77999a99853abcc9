/* The gRPC example's kit tests' shared part (grpc_script.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/kit.h>
#include <shb/ext/h2.h>

#include "../src/grpc_wire.h"
#include "grpc_script.h"

int failures;


struct shb_kit_host kh;
struct shb_kit_plugin h2p, gp;
const struct shb_proto_desc *gdesc;

void load_plugins(void)
{
	const char *h2path = getenv("SHB_H2_PLUGIN"), *gpath = getenv("GRPC_PLUGIN");
	const struct shb_h2_proto_ext *x;
	char err[256];

	if (!h2path || !gpath) {
		fprintf(stderr, "test_grpc: set SHB_H2_PLUGIN and GRPC_PLUGIN\n");
		exit(1);
	}
	if (shb_kit_host_init(&kh, SHB_ABI_MINOR) < 0 ||
	    shb_kit_plugin_open(&h2p, h2path, err, sizeof(err)) < 0 ||
	    shb_kit_plugin_init(&h2p, &kh) != SHB_OK) {
		fprintf(stderr, "test_grpc: cannot load %s: %s\n", h2path, err);
		exit(1);
	}
	/* The core answers host->get_extension from every loaded plugin's
	 * entry; the kit host asks the plugins it is given as providers. */
	CHECK(shb_kit_plugin_provide(&h2p, &kh) == 0);
	x = kh.host.get_extension(SHB_EXT_H2_PROTO);
	if (!x) {
		fprintf(stderr, "test_grpc: %s offers no " SHB_EXT_H2_PROTO "\n", h2path);
		exit(1);
	}
	if (shb_kit_plugin_open(&gp, gpath, err, sizeof(err)) < 0 ||
	    shb_kit_plugin_init(&gp, &kh) != SHB_OK) {
		fprintf(stderr, "test_grpc: cannot load %s: %s\n", gpath, err);
		exit(1);
	}
	gdesc = shb_kit_plugin_proto(&gp, "grpc");
	if (!gdesc) {
		fprintf(stderr, "test_grpc: no protocol grpc in %s\n", gpath);
		exit(1);
	}
	/* Our state, then h2's. */
	CHECK(gdesc->conn_size > x->desc->conn_size);
	CHECK(gdesc->conn_size <= x->desc->conn_size + 256);
	CHECK_STR(gdesc->scheme_defs[0].name, "grpc");
	CHECK(gdesc->scheme_defs[0].default_port == 50051);
	CHECK(gdesc->scheme_defs[1].flags == SHB_SCHEME_TLS);
}

void check_no_violations(void)
{
	size_t n = shb_kit_host_dump_violations(&kh, "kit: ");

	CHECK(n == 0);
	shb_kit_host_reset(&kh);
}

/* A module for `path` with body `msg` and the options given (NULL-ended
 * key, value pairs); the module's code. */
int make_module(struct shb_kit_module *m, const char *path,
		       const char *msg, const char *const *opts)
{
	struct shb_run_config cfg;
	struct shb_kv kv[4];
	size_t n = 0;
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = msg ? "POST" : "GET",
		.scheme = "grpc",
		.authority = "example.com:50051",
		.path = path,
		.flags = msg ? SHB_REQUEST_HAS_BODY : 0,
		.body = (const uint8_t *)msg,
		.body_len = msg ? strlen(msg) : 0,
	};
	int rc;

	shb_kit_run_config_default(&cfg, gdesc);
	cfg.parallel = 4;
	for (; opts && opts[2 * n]; n++)
		kv[n] = (struct shb_kv){opts[2 * n], opts[2 * n + 1]};
	cfg.options = n ? kv : NULL;
	cfg.option_count = n;
	rc = shb_kit_module_create(m, &kh, gdesc, &cfg);
	if (rc < 0)
		return rc;
	rc = shb_kit_module_prepare(m, &req);
	if (rc == SHB_OK)
		rc = shb_kit_module_worker_init(m);
	return rc;
}

/* ---- a scripted gRPC server ---- */


void frame(struct bytes *b, uint8_t type, uint8_t flags, uint32_t sid,
		  const void *payload, size_t len)
{
	uint8_t *h = b->p + b->len;

	h[0] = (uint8_t)(len >> 16);
	h[1] = (uint8_t)(len >> 8);
	h[2] = (uint8_t)len;
	h[3] = type;
	h[4] = flags;
	h[5] = (uint8_t)(sid >> 24);
	h[6] = (uint8_t)(sid >> 16);
	h[7] = (uint8_t)(sid >> 8);
	h[8] = (uint8_t)sid;
	if (len) /* SETTINGS and the like: no payload, maybe NULL */
		memcpy(h + 9, payload, len);
	b->len += 9 + len;
}


/* A header block: ":status" values as the static index for 200, every
 * other field a literal without indexing with a literal name. */
size_t block(uint8_t *blk, const char *const *fields)
{
	size_t n = 0;

	for (size_t i = 0; fields[i]; i += 2) {
		const char *name = fields[i], *value = fields[i + 1];

		if (strcmp(name, ":status") == 0 && strcmp(value, "200") == 0) {
			blk[n++] = 0x88;
			continue;
		}
		blk[n++] = 0x00;
		blk[n++] = (uint8_t)strlen(name);
		memcpy(blk + n, name, strlen(name));
		n += strlen(name);
		blk[n++] = (uint8_t)strlen(value);
		memcpy(blk + n, value, strlen(value));
		n += strlen(value);
	}
	return n;
}

void headers(struct bytes *b, uint32_t sid, uint8_t flags,
		    const char *const *fields)
{
	uint8_t blk[512];

	frame(b, HEADERS, (uint8_t)(flags | END_HEADERS), sid, blk,
	      block(blk, fields));
}

/* DATA with one message `msg` (flag 0). */
void message(struct bytes *b, uint32_t sid, uint8_t flags,
		    const char *msg)
{
	uint8_t p[256];

	grpc_prefix(p, (uint32_t)strlen(msg));
	memcpy(p + GRPC_PREFIX_LEN, msg, strlen(msg));
	frame(b, DATA, flags, sid, p, GRPC_PREFIX_LEN + strlen(msg));
}

const char *const head_ok[] = {":status", "200", "content-type",
				      "application/grpc", NULL};

int issue_two(struct shb_kit_conn *c, void *user)
{
	(void)user;
	if (shb_kit_conn_issue(c, NULL, 1) != SHB_OK ||
	    shb_kit_conn_issue(c, NULL, 2) != SHB_OK)
		return 1;
	shb_kit_conn_flush(c, 0);
	return 0;
}

/* The frame of `type` on stream `sid` in what the client sent, or NULL;
 * *len its payload length. */
const uint8_t *sent_frame(const struct shb_kit_conn *c, uint8_t type,
				 uint32_t sid, size_t *len)
{
	size_t off = 24; /* the connection preface */

	if (c->out_len < off || memcmp(c->out, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24))
		return NULL;
	while (off + 9 <= c->out_len) {
		const uint8_t *h = c->out + off;
		size_t n = (size_t)h[0] << 16 | (size_t)h[1] << 8 | h[2];
		uint32_t id = (uint32_t)(h[5] & 0x7f) << 24 | (uint32_t)h[6] << 16 |
			      (uint32_t)h[7] << 8 | h[8];

		if (h[3] == type && id == sid) {
			*len = n;
			return h + 9;
		}
		off += 9 + n;
	}
	return NULL;
}

int contains(const uint8_t *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0)
			return 1;
	return 0;
}

/* The server's empty SETTINGS, then everything the client sends. */
void server_settings(struct shb_kit_conn *c)
{
	static const uint8_t settings[] = {0, 0, 0, SETTINGS, 0, 0, 0, 0, 0};

	CHECK(shb_kit_conn_feed(c, settings, sizeof(settings)) == SHB_OK);
	shb_kit_conn_flush(c, 0);
}
