/* shb plugin ABI: the entry point, the only symbol a plugin exports.
 *
 * A plugin is a shared object that exports exactly one data symbol,
 * `const struct shb_plugin_entry shb_plugin_entry_v1` (the ABI major is in the
 * name). The core dlopens it with RTLD_NOW | RTLD_LOCAL, reads the entry,
 * checks struct_size, abi_major and abi_minor, then calls init() once.
 * Plugins never reference symbols of the shb binary: every core service
 * comes through struct shb_host.
 *
 * Thread tags used in every header:
 *   [main]   the core's main thread, before workers start or after they join
 *   [worker] the worker thread that owns the object
 *   [conn]   the worker owning that connection; calls on one connection are
 *            serialised and never nested (the core never calls the plugin
 *            from inside a host callback)
 *   [any]    any thread, concurrently
 */
#ifndef SHB_PLUGIN_H
#define SHB_PLUGIN_H

#include <shb/types.h>
#include <shb/version.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_host;

/* Factory ids understood by get_factory(). */
#define SHB_FACTORY_PROTOCOL "shb.protocol/1" /* struct shb_proto_factory */
#define SHB_FACTORY_REPORTER "shb.reporter/1" /* struct shb_report_factory */
/* since 1.4: SHB_FACTORY_SCRIPT, "shb.script/1", struct
 * shb_script_factory (script.h): script engines for -s. */

#define SHB_PLUGIN_ENTRY_SYMBOL "shb_plugin_entry_v1"

struct shb_plugin_entry {
	uint32_t struct_size; /* sizeof(struct shb_plugin_entry) at build */
	uint32_t abi_major;   /* SHB_ABI_MAJOR; must equal the core's */
	uint32_t abi_minor;   /* minimum core minor this plugin needs */
	uint32_t flags;       /* none defined yet; 0 */

	/* Static strings, valid until deinit(). id is reverse-DNS
	 * ("org.shb.proto.h1"); the others may be NULL. */
	const char *id;
	const char *version;
	const char *vendor;
	const char *url;
	const char *license;

	/* [main] Called once after a successful load, before any factory is
	 * asked. `host` stays valid until deinit() returns; the plugin may keep
	 * it in a static (written once, read-only afterwards). Returns SHB_OK
	 * or a negative SHB_E_*, in which case the plugin is unloaded. */
	int (*init)(const struct shb_host *host);

	/* [main] Called once after every module and reporter of this plugin was
	 * destroyed. May be NULL. */
	void (*deinit)(void);

	/* [main] Returns a factory for `factory_id` (SHB_FACTORY_*) or NULL. The
	 * returned table is static, valid until deinit(). */
	const void *(*get_factory)(const char *factory_id);

	/* since 1.2 (the loader reads the entry through its ELF symbol size,
	 * so a 1.1 entry simply ends before it) */
	/* [main] An interface this plugin offers other plugins, by versioned id
	 * ("org.shb.h2.proto/1"), or NULL. Called only after init()
	 * succeeded; the table returned is static and valid until deinit().
	 * Other plugins reach it through host->get_extension(). May be NULL. */
	const void *(*get_extension)(const char *id);
};

/* SHB_FACTORY_PROTOCOL: the protocols a plugin provides. */
struct shb_proto_desc;
struct shb_proto_factory {
	uint32_t struct_size;
	uint32_t count;
	/* [main] index < count; returns a static descriptor. */
	const struct shb_proto_desc *(*get)(uint32_t index);
};

/* SHB_FACTORY_REPORTER: the reporters a plugin provides. */
struct shb_report_desc;
struct shb_report_factory {
	uint32_t struct_size;
	uint32_t count;
	/* [main] index < count; returns a static descriptor. */
	const struct shb_report_desc *(*get)(uint32_t index);
};

/* Marks the entry symbol for export; plugins are built with hidden
 * visibility and a version script that exports only this symbol. */
#define SHB_PLUGIN_EXPORT __attribute__((visibility("default")))

#ifdef __cplusplus
}
#endif
#endif
