#include "engine/host.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/error_text.h"
#include "results/hist.h"
#include "engine/run.h"
#include "shb_build_config.h"

static int debug_level = -1;

int shb_debug_level(void)
{
	if (debug_level < 0) {
		const char *s = getenv("SHB_DEBUG");
		debug_level = s && *s ? atoi(s) : 0;
		if (s && *s && debug_level == 0 && strcmp(s, "0") != 0)
			debug_level = 1; /* SHB_DEBUG=yes */
	}
	return debug_level;
}

static int32_t host_log_enabled(uint32_t level)
{
	/* Quiet by default: errors and warnings only. SHB_DEBUG=1 adds info
	 * and debug traces, SHB_DEBUG=2 also trace. */
	if (level <= SHB_LOG_WARN)
		return 1;
	if (level <= SHB_LOG_DEBUG)
		return shb_debug_level() >= 1;
	return shb_debug_level() >= 2;
}

static void host_log(uint32_t level, const char *plugin_id, const char *msg)
{
	static const char *const names[] = {"error", "warning", "info", "debug", "trace"};
	if (!host_log_enabled(level))
		return;
	/* One fprintf per line keeps lines from different workers whole. */
	fprintf(stderr, "shb: %s%s%s: %s\n", level <= SHB_LOG_TRACE ? names[level] : "log",
		plugin_id ? " " : "", plugin_id ? plugin_id : "", msg ? msg : "");
}

static shb_tstamp host_now(void)
{
	return shb_now_ns();
}

static const char *host_strerror(int code)
{
	return shb_error_text(code);
}

static int host_random_secure(void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return SHB_E_FATAL;
		}
		p += n;
		len -= (size_t)n;
	}
	return SHB_OK;
}

struct shb_ext_run shb_ext_run_info = {.struct_size = sizeof(struct shb_ext_run)};

static const void *(*ext_source)(void *ctx, const char *id);
static void *ext_ctx;
static pthread_t main_thread;

void shb_host_set_extensions(const void *(*fn)(void *ctx, const char *id),
			     void *ctx)
{
	ext_source = fn;
	ext_ctx = ctx;
}

/* The core's own ids from any thread; plugins' ids on the main thread
 * only, because answering them may load and init plugins. */
static const void *host_get_extension(const char *id)
{
	if (!id)
		return NULL;
	if (strcmp(id, SHB_EXT_RUN_ID) == 0)
		return &shb_ext_run_info;
	if (!ext_source || !pthread_equal(pthread_self(), main_thread))
		return NULL;
	return ext_source(ext_ctx, id);
}

static const struct shb_host host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = SHB_VERSION,
	.log = host_log,
	.log_enabled = host_log_enabled,
	.now = host_now,
	.strerror = host_strerror,
	.random_secure = host_random_secure,
	.get_extension = host_get_extension,
	.req_done = shb_worker_req_done,
	.conn_event = shb_worker_conn_event,
	.hist = &shb_histo_ops,
	.conn_origin = shb_worker_conn_origin,
	.tls_client_hello = shb_worker_tls_client_hello,
	.conn_fingerprint = shb_worker_conn_fingerprint,
	.req_response = shb_worker_req_response,
	.metric_add = shb_worker_metric_add,
	.metric_record = shb_worker_metric_record,
};

const struct shb_host *shb_core_host(void)
{
	main_thread = pthread_self();
	shb_debug_level();
	return &host;
}
