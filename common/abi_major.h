/* Which ABI major a plugin was built for when it does not export this
 * shb's entry symbol: the loader and shb-plugin-check both name it in
 * their refusal ("built for shb ABI 2, this shb provides ABI 1"). */
#ifndef SHB_COMMON_ABI_MAJOR_H
#define SHB_COMMON_ABI_MAJOR_H

/* The first major N != SHB_ABI_MAJOR, from 1 up to SHB_ABI_MAJOR + 16,
 * whose shb_plugin_entry_vN the dlopen handle dl exports; 0 if none.
 * [main] thread (dlsym). */
unsigned shb_other_abi_major(void *dl);

#endif
