/* The driver's datagram calls (shb/kit/driver.h, "DGRAM"): recv_dgrams
 * on private copies, write_dgrams checked against UDP GSO's rules and
 * max_dgram, and (ABI 1.4) write_dgrams_v checked against its sizes; the
 * flush collects datagrams as the core sends them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_int.h"

/* Most datagrams one flush collects: a module that never runs dry is
 * broken. */
#define FLUSH_DGRAMS_MAX 4096

int shb_kit_conn_recv_dgrams(struct shb_kit_conn *c,
			     const struct shb_vec *dgrams, size_t count)
{
	struct shb_vec *v = calloc(count ? count : 1, sizeof *v);
	size_t total = 0, off = 0;
	uint8_t *buf;
	int rc;

	for (size_t i = 0; i < count; i++)
		total += dgrams[i].len;
	buf = malloc(total ? total : 1);
	if (!v || !buf) {
		free(v);
		free(buf);
		return SHB_E_NOMEM;
	}
	/* Private, mutable copies: the module may decrypt in place. */
	for (size_t i = 0; i < count; i++) {
		memcpy(buf + off, dgrams[i].base, dgrams[i].len);
		v[i].base = buf + off;
		v[i].len = dgrams[i].len;
		off += dgrams[i].len;
	}
	SHB_KIT_CALL(c, "recv_dgrams",
	     rc = c->m->vt->recv_dgrams(c->mem, v, count, shb_kit_now_of(c)));
	free(v);
	free(buf);
	return rc;
}

shb_ssize shb_kit_conn_write_dgrams(struct shb_kit_conn *c, uint8_t *buf,
				    size_t cap, size_t *segment_size)
{
	shb_ssize rc;

	*segment_size = 0;
	SHB_KIT_CALL(c, "write_dgrams",
	     rc = c->m->vt->write_dgrams(c->mem, buf, cap, segment_size,
					 shb_kit_now_of(c)));
	if (rc > (shb_ssize)cap) {
		shb_kit_violation(c->kh, "write_dgrams wrote %zd bytes into %zu",
				  (ssize_t)rc, cap);
		return SHB_E_PROTO;
	}
	if (rc > 0 && *segment_size == 0) {
		shb_kit_violation(c->kh, "write_dgrams wrote %zd bytes with "
					 "segment_size 0", (ssize_t)rc);
		return SHB_E_PROTO;
	}
	if (rc > 0 && *segment_size > c->m->max_dgram) {
		shb_kit_violation(c->kh, "write_dgrams segment_size %zu above "
					 "max_dgram %u",
				  *segment_size, (unsigned)c->m->max_dgram);
		return SHB_E_PROTO;
	}
	return rc;
}

static int has_write_v(const struct shb_kit_conn *c)
{
	return SHB_HAS(c->m->vt, struct shb_proto_vtable, write_dgrams_v) &&
	       c->m->vt->write_dgrams_v;
}

shb_ssize shb_kit_conn_write_dgrams_v(struct shb_kit_conn *c, uint8_t *buf,
				      size_t cap, uint16_t *sizes,
				      size_t max_count, size_t *count)
{
	shb_ssize rc;
	size_t sum = 0;

	*count = 0;
	if (!has_write_v(c))
		return SHB_E_UNSUPPORTED;
	SHB_KIT_CALL(c, "write_dgrams_v",
	     rc = c->m->vt->write_dgrams_v(c->mem, buf, cap, sizes, max_count,
					   count, shb_kit_now_of(c)));
	if (rc < 0)
		return rc;
	if (*count > max_count) {
		shb_kit_violation(c->kh, "write_dgrams_v wrote %zu datagrams, at "
					 "most %zu asked", *count, max_count);
		return SHB_E_PROTO;
	}
	for (size_t i = 0; i < *count; i++) {
		if (!sizes[i] || sizes[i] > c->m->max_dgram) {
			shb_kit_violation(c->kh, "write_dgrams_v datagram %zu of %u "
						 "bytes (1 to max_dgram %u)", i,
					  (unsigned)sizes[i], (unsigned)c->m->max_dgram);
			return SHB_E_PROTO;
		}
		sum += sizes[i];
	}
	if (sum != (size_t)rc || (size_t)rc > cap) {
		shb_kit_violation(c->kh, "write_dgrams_v returned %zd bytes into %zu, "
					 "its sizes add up to %zu", (ssize_t)rc, cap, sum);
		return SHB_E_PROTO;
	}
	return rc;
}

static int append_dgram(struct shb_kit_conn *c, const uint8_t *p, size_t n)
{
	if (shb_kit_grow(&c->dgram_len, &c->dgram_cap, c->dgram_count + 1,
			 sizeof *c->dgram_len) ||
	    shb_kit_append_out(c, p, n))
		return -1;
	c->dgram_len[c->dgram_count++] = n;
	return 0;
}

/* As the core does: a train of max_train datagrams at most. */
static shb_ssize flush_dgrams_v(struct shb_kit_conn *c, size_t cap)
{
	uint16_t sizes[1024];
	size_t max = c->m->max_train < 1024 ? c->m->max_train : 1024, count;
	uint8_t *buf = malloc(cap);
	shb_ssize got = 0, rc = 0;

	if (!buf)
		return SHB_E_NOMEM;
	while (got < FLUSH_DGRAMS_MAX) {
		size_t off = 0;

		rc = shb_kit_conn_write_dgrams_v(c, buf, cap, sizes, max, &count);
		if (rc <= 0)
			break;
		for (size_t i = 0; i < count; off += sizes[i++], got++)
			append_dgram(c, buf + off, sizes[i]);
	}
	free(buf);
	if (got >= FLUSH_DGRAMS_MAX)
		shb_kit_violation(c->kh, "write_dgrams_v still has datagrams "
					 "after %d", FLUSH_DGRAMS_MAX);
	return rc < 0 ? rc : got;
}

shb_ssize shb_kit_conn_flush_dgrams(struct shb_kit_conn *c)
{
	size_t cap = (size_t)c->m->max_dgram * c->m->max_train;
	uint8_t *buf;
	shb_ssize got = 0, rc = 0;

	if (has_write_v(c))
		return flush_dgrams_v(c, cap);
	if (!c->m->vt->write_dgrams)
		return 0;
	buf = malloc(cap);
	if (!buf)
		return SHB_E_NOMEM;
	while (got < FLUSH_DGRAMS_MAX) {
		size_t seg;

		rc = shb_kit_conn_write_dgrams(c, buf, cap, &seg);
		if (rc <= 0)
			break;
		for (size_t off = 0; off < (size_t)rc; off += seg) {
			size_t n = (size_t)rc - off < seg ? (size_t)rc - off : seg;

			append_dgram(c, buf + off, n);
			got++;
		}
	}
	free(buf);
	if (got >= FLUSH_DGRAMS_MAX)
		shb_kit_violation(c->kh, "write_dgrams still has datagrams "
					 "after %d", FLUSH_DGRAMS_MAX);
	return rc < 0 ? rc : got;
}
