/* shb plugin SDK: one-line plugin definition.
 *
 * SHB_PLUGIN_DEFINE writes what every plugin otherwise spells out by hand:
 * the exported entry `shb_plugin_entry_v1` (with SHB_PLUGIN_EXPORT, the ABI
 * major and the target minor), the protocol and reporter factories over
 * static descriptor lists, get_factory, and init/deinit wrappers that
 * accept NULL. It expands to file-scope definitions only, ends without a
 * semicolon (write one after it), and compiles warning-free as C11 and as
 * C++ (-Wall -Wextra -Wpedantic): it uses positional initializers, and in
 * C++ gives the entry C linkage.
 *
 * Example: a plugin with one protocol and no reporter.
 *
 *     #include <shb/shb.h>
 *     #include <shb/define.h>
 *
 *     static const struct shb_proto_desc echo_desc = { ... };
 *
 *     SHB_PLUGIN_DEFINE("org.example.shb.echo", "1.0.0", NULL, NULL,
 *                       SHB_PROTOCOLS(&echo_desc), SHB_NO_REPORTERS);
 *
 * A plugin with vendor, URL, licence, init/deinit and an extension:
 *
 *     SHB_PLUGIN_DEFINE_FULL("org.example.shb.both", "2.1", "Example",
 *                            "https://example.org/shb", "MIT",
 *                            my_init, my_deinit, my_get_extension,
 *                            SHB_PROTOCOLS(&a_desc, &b_desc),
 *                            SHB_REPORTERS(&csv_desc));
 *
 * Arguments (all evaluated in static initializers, so constants):
 *   id        reverse-DNS plugin id, a string literal (never NULL)
 *   version   the plugin's version string, or NULL
 *   vendor, url, license   strings or NULL
 *   init      int (*)(const struct shb_host *), or NULL when the plugin
 *             needs nothing at load; called [main] once, as entry->init
 *   deinit    void (*)(void), or NULL; [main] once, as entry->deinit
 *   get_ext   const void *(*)(const char *), or NULL: [main]
 *             entry->get_extension (since 1.2; a 1.1 core never reads it)
 *   protos    SHB_PROTOCOLS(&desc, ...) or SHB_NO_PROTOCOLS
 *   reports   SHB_REPORTERS(&desc, ...) or SHB_NO_REPORTERS
 *
 * Strings and descriptors are static, owned by the plugin and valid until
 * deinit returns (plugin.h); the factories return the descriptors by
 * index, [main], in the order given. get_factory answers NULL for a
 * kind with no descriptor and for any id it does not know. The entry's
 * abi_minor is SHB_TARGET_ABI_MINOR: define that before including the SDK
 * to target an older core.
 *
 * The names the macro defines start with `shb_define_` and are static;
 * one SHB_PLUGIN_DEFINE per shared object (it defines the one exported
 * symbol). */
#ifndef SHB_DEFINE_H
#define SHB_DEFINE_H

#include <string.h>

#include <shb/types.h>
#include <shb/version.h>
#include <shb/plugin.h>
#include <shb/proto.h>
#include <shb/report.h>

/* Descriptor lists: a parenthesised list the macro unpacks. */
#define SHB_PROTOCOLS(...) (__VA_ARGS__)
#define SHB_REPORTERS(...) (__VA_ARGS__)
#define SHB_NO_PROTOCOLS ()
#define SHB_NO_REPORTERS ()

/* Internal: `SHB_DEFINE_UNPACK_ (a, b)` is `a, b`; `()` is nothing. */
#define SHB_DEFINE_UNPACK_(...) __VA_ARGS__

#ifdef __cplusplus
#define SHB_DEFINE_LINKAGE_ extern "C"
#else
#define SHB_DEFINE_LINKAGE_ extern
#endif

/* Internal: one factory of kind T (proto or report) over the list `descs`.
 * The arrays start with a NULL so that an empty list is still a valid
 * initializer in C11 and C++ (`{ NULL, }`); entry i is at [i + 1]. */
#define SHB_DEFINE_FACTORY_(T, descs)                                          \
	static const struct shb_##T##_desc *const shb_define_##T##s_[] = {    \
		NULL, SHB_DEFINE_UNPACK_ descs};                               \
	static const struct shb_##T##_desc *shb_define_##T##_get_(            \
		uint32_t index)                                                \
	{                                                                      \
		/* index + 1 < size, not index < size - 1: no "always false"   \
		 * comparison with an empty list. */                           \
		if (index + 1 < sizeof shb_define_##T##s_ /                    \
					sizeof shb_define_##T##s_[0])          \
			return shb_define_##T##s_[index + 1];                  \
		return NULL;                                                   \
	}                                                                      \
	static const struct shb_##T##_factory shb_define_##T##_factory_ = {   \
		sizeof(struct shb_##T##_factory),                              \
		sizeof shb_define_##T##s_ / sizeof shb_define_##T##s_[0] - 1,  \
		shb_define_##T##_get_}

#define SHB_PLUGIN_DEFINE_FULL(id, version, vendor, url, license, init,       \
			       deinit, get_ext, protos, reports)               \
	SHB_DEFINE_FACTORY_(proto, protos);                                    \
	SHB_DEFINE_FACTORY_(report, reports);                                  \
	static int shb_define_init_(const struct shb_host *host)               \
	{                                                                      \
		/* Through a variable: `init` may be NULL or a function, and a \
		 * function's address tested directly draws -Waddress. */      \
		int (*fn)(const struct shb_host *) = init;                     \
		if (!fn)                                                       \
			return SHB_OK;                                         \
		return fn(host);                                               \
	}                                                                      \
	static void shb_define_deinit_(void)                                   \
	{                                                                      \
		void (*fn)(void) = deinit;                                     \
		if (fn)                                                        \
			fn();                                                  \
	}                                                                      \
	static const void *shb_define_get_factory_(const char *factory_id)     \
	{                                                                      \
		if (!factory_id)                                               \
			return NULL;                                           \
		if (shb_define_proto_factory_.count &&                         \
		    strcmp(factory_id, SHB_FACTORY_PROTOCOL) == 0)             \
			return &shb_define_proto_factory_;                     \
		if (shb_define_report_factory_.count &&                        \
		    strcmp(factory_id, SHB_FACTORY_REPORTER) == 0)             \
			return &shb_define_report_factory_;                    \
		return NULL;                                                   \
	}                                                                      \
	SHB_DEFINE_LINKAGE_ SHB_PLUGIN_EXPORT const struct shb_plugin_entry    \
		shb_plugin_entry_v1;                                           \
	/* The attribute on the declaration only: g++ ignores (and warns     \
	 * about) one repeated on the definition. */                          \
	const struct shb_plugin_entry shb_plugin_entry_v1 = {                  \
		sizeof(struct shb_plugin_entry),                               \
		SHB_ABI_MAJOR,                                                 \
		SHB_TARGET_ABI_MINOR,                                          \
		0,                                                             \
		id,                                                            \
		version,                                                       \
		vendor,                                                        \
		url,                                                           \
		license,                                                       \
		shb_define_init_,                                              \
		shb_define_deinit_,                                            \
		shb_define_get_factory_,                                       \
		get_ext}

#define SHB_PLUGIN_DEFINE(id, version, init, deinit, protos, reports)         \
	SHB_PLUGIN_DEFINE_FULL(id, version, NULL, NULL, NULL, init, deinit,    \
			       NULL, protos, reports)

#endif
