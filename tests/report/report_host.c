/* The reporter tests' host, output capture and loader (report_host.h). */
#include "report_host.h"

#include <stdlib.h>
#include <string.h>

#include "results/hist.h"

const struct shb_host rep_host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "0.1.0",
	.hist = &shb_histo_ops,
};

shb_ssize membuf_write(void *ctx, const void *buf, size_t len)
{
	struct membuf *m = ctx;
	char *p = realloc(m->data, m->len + len + 1);
	if (!p)
		return SHB_E_NOMEM;
	memcpy(p + m->len, buf, len);
	m->data = p;
	m->len += len;
	p[m->len] = '\0';
	return (shb_ssize)len;
}

int rep_loader_init(struct shb_loader *l)
{
	char *dir = getenv("SHB_REPORT_PLUGIN_DIR");
	if (!dir)
		return -1;
	shb_loader_init(l, &rep_host, &dir, 1);
	return 0;
}
