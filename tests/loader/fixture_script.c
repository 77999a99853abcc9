/* A script engine fixture (shb/script.h, ABI 1.4) for the loader's checks
 * of script engines. Compile-time switches:
 *   FX_ID            plugin id (string, required)
 *   FX_SCRIPT        the engine's name (string, required)
 *   FX_MINOR         the entry's abi_minor (default SHB_ABI_MINOR)
 *   FX_NO_EXT        the descriptor lists no extension
 *   FX_DOT_EXT       an extension with a dot (".fx")
 *   FX_NO_DONE       the vtable lacks done
 * Nothing here runs a script: every member fails if it is called. */
#include <stddef.h>
#include <string.h>

#include <shb/shb.h>

#ifndef FX_MINOR
#define FX_MINOR SHB_ABI_MINOR
#endif

static int fx_create(const struct shb_host *host, const struct shb_script_config *cfg,
		     void **script, char *err, size_t errlen)
{
	(void)host, (void)cfg, (void)script, (void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}

static int fx_thread_create(void *script, uint32_t index, const struct sockaddr *addr,
			    uint32_t addr_len, void **thread, char *err, size_t errlen)
{
	(void)script, (void)index, (void)addr, (void)addr_len, (void)thread;
	(void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}

static uint32_t fx_thread_addr(void *thread, struct sockaddr *addr, uint32_t cap)
{
	(void)thread, (void)addr, (void)cap;
	return 0;
}

static int fx_thread_init(void *thread, char *err, size_t errlen)
{
	(void)thread, (void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}

static uint32_t fx_thread_hooks(void *thread)
{
	(void)thread;
	return 0;
}

static int fx_request(void *thread, struct shb_vec *out, char *err, size_t errlen)
{
	(void)thread, (void)out, (void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}

static int fx_delay(void *thread, uint64_t *ms, char *err, size_t errlen)
{
	(void)thread, (void)ms, (void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}

static int fx_response(void *thread, const struct shb_response *resp, char *err,
		       size_t errlen)
{
	(void)thread, (void)resp, (void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}

#ifndef FX_NO_DONE
static int fx_done(void *script, const struct shb_script_summary *sum, char *err,
		   size_t errlen)
{
	(void)script, (void)sum, (void)err, (void)errlen;
	return SHB_E_UNSUPPORTED;
}
#endif

static void fx_thread_destroy(void *thread)
{
	(void)thread;
}

static void fx_destroy(void *script)
{
	(void)script;
}

static const struct shb_script_vtable fx_vt = {
	.struct_size = sizeof(struct shb_script_vtable),
	.create = fx_create,
	.thread_create = fx_thread_create,
	.thread_addr = fx_thread_addr,
	.thread_init = fx_thread_init,
	.thread_hooks = fx_thread_hooks,
	.request = fx_request,
	.delay = fx_delay,
	.response = fx_response,
#ifndef FX_NO_DONE
	.done = fx_done,
#endif
	.thread_destroy = fx_thread_destroy,
	.destroy = fx_destroy,
};

#if defined(FX_NO_EXT)
static const char *const fx_exts[] = {NULL};
#elif defined(FX_DOT_EXT)
static const char *const fx_exts[] = {"fx", ".fx", NULL};
#else
static const char *const fx_exts[] = {"fx", "fxs", NULL};
#endif

static const struct shb_script_desc fx_desc = {
	.struct_size = sizeof(struct shb_script_desc),
	.name = FX_SCRIPT,
	.summary = "fixture script engine " FX_ID,
	.extensions = fx_exts,
	.vt = &fx_vt,
};

static const struct shb_script_desc *fx_get(uint32_t i)
{
	return i == 0 ? &fx_desc : NULL;
}

static const struct shb_script_factory fx_factory = {
	sizeof(struct shb_script_factory), 1, fx_get,
};

static const void *fx_get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_SCRIPT) == 0 ? &fx_factory : NULL;
}

static int fx_init(const struct shb_host *host)
{
	(void)host;
	return SHB_OK;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = FX_MINOR,
	.id = FX_ID,
	.version = "1.2.3",
	.init = fx_init,
	.get_factory = fx_get_factory,
};
