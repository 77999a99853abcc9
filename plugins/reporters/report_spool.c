/* The reporters' spool of per-interval texts (report_spool.h). */
#include "report_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An unlinked file: it vanishes with the process, whatever way that
 * ends. -1 when none can be made. */
static int spool_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	if (!dir || !*dir)
		dir = "/tmp";
	int n = snprintf(path, sizeof(path), "%s/shb-report-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	int fd = mkostemp(path, O_CLOEXEC);
	/* A file that cannot be unlinked would outlive the run: not used. */
	if (fd >= 0 && unlink(path) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* All of buf at off, or -1. */
static int put_all(int fd, const char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t w = pwrite(fd, buf, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int get_all(int fd, char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t r = pread(fd, buf, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int shb_rpt_spool_keep(struct shb_rpt *rep, struct shb_rpt_ival *v,
		       const char *text)
{
	size_t len = strlen(text);
	v->hdr = NULL;
	v->hdr_len = 0;
	if (rep->spool_fd < 0)
		rep->spool_fd = spool_open();
	if (rep->spool_fd >= 0 && len && len <= UINT32_MAX &&
	    put_all(rep->spool_fd, text, len, rep->spool_len) == 0) {
		v->hdr_off = rep->spool_len;
		v->hdr_len = (uint32_t)len;
		rep->spool_len += len;
		return SHB_OK;
	}
	/* No file (read-only or full disk): memory, as a copy. */
	v->hdr = strdup(text);
	return v->hdr ? SHB_OK : SHB_E_NOMEM;
}

const char *shb_rpt_spool_text(const struct shb_rpt *rep,
			       const struct shb_rpt_ival *v, char **owned)
{
	*owned = NULL;
	if (v->hdr || !v->hdr_len || rep->spool_fd < 0)
		return v->hdr;
	char *s = malloc((size_t)v->hdr_len + 1);
	if (!s)
		return NULL;
	if (get_all(rep->spool_fd, s, v->hdr_len, v->hdr_off) != 0) {
		free(s);
		return NULL;
	}
	s[v->hdr_len] = '\0';
	*owned = s;
	return s;
}

void shb_rpt_spool_reset(struct shb_rpt *rep)
{
	if (rep->spool_fd >= 0 && ftruncate(rep->spool_fd, 0) != 0) {
		/* Cannot shrink it: start a fresh one when needed. */
		shb_rpt_spool_close(rep);
	}
	rep->spool_len = 0;
}

void shb_rpt_spool_close(struct shb_rpt *rep)
{
	if (rep->spool_fd >= 0)
		close(rep->spool_fd);
	rep->spool_fd = -1;
	rep->spool_len = 0;
}
