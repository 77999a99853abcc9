/* A reporter plugin whose descriptor vanishes: get(0) answers in the
 * first two processes that init it and NULL from the third on (loads
 * counted in the file SHB_KIT_VANISH_FILE names, one byte per init). Run
 * by shb-plugin-check, whose init and descriptor groups come first, the
 * reporter group then finds no descriptor: it must fail with a line, not
 * crash (tests/kit/check.sh). A plugin that reads its configuration from
 * a file that changes between loads behaves the same. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <shb/shb.h>

#define ANSWERED_LOADS 2

static int vanished;

static int rep_create(const struct shb_host *host,
		      const struct shb_ostream *out, const char *options,
		      void **rep, char *err, size_t errlen)
{
	*rep = NULL;
	return SHB_OK;
}

static int rep_begin(void *rep, const struct shb_run_info *info)
{
	return SHB_OK;
}

static int rep_end(void *rep, const struct shb_results *r)
{
	return SHB_OK;
}

static void rep_destroy(void *rep)
{
}

static const struct shb_report_vtable vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = rep_create,
	.begin = rep_begin,
	.end = rep_end,
	.destroy = rep_destroy,
};

static const struct shb_report_desc desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.name = "vanish",
	.summary = "fixture reporter that vanishes on its third load",
	.vt = &vt,
};

static const struct shb_report_desc *get(uint32_t i)
{
	return i == 0 && !vanished ? &desc : NULL;
}

static const struct shb_report_factory factory = {
	.struct_size = sizeof(struct shb_report_factory),
	.count = 1,
	.get = get,
};

/* This load's number: the counting file's size after one more byte. */
static int init(const struct shb_host *host)
{
	const char *path = getenv("SHB_KIT_VANISH_FILE");
	struct stat st;
	int fd;

	if (!path)
		return SHB_E_INVAL;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd < 0)
		return SHB_E_INVAL;
	if (write(fd, "x", 1) != 1 || fstat(fd, &st) != 0) {
		close(fd);
		return SHB_E_INVAL;
	}
	close(fd);
	vanished = st.st_size > ANSWERED_LOADS;
	return SHB_OK;
}

static const void *get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_REPORTER) == 0 ? &factory : NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.id = "org.shb.test.kit.vanish",
	.version = "1",
	.init = init,
	.get_factory = get_factory,
};
