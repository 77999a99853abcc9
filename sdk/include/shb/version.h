/* shb plugin ABI version.
 *
 * SHB_ABI_MAJOR changes only on a breaking change; it is part of the name of
 * the one exported entry symbol (shb_plugin_entry_v1). SHB_ABI_MINOR grows by
 * one whenever members, enum values, extension ids or factory ids are
 * appended. A plugin records the minimum core minor it needs in its entry;
 * the core loads it when majors are equal and plugin minor <= core minor. */
#ifndef SHB_VERSION_H
#define SHB_VERSION_H

#define SHB_ABI_MAJOR 1
#define SHB_ABI_MINOR 4

/* Lets a plugin target an older core: it then must not rely on members
 * added after that minor. */
#ifndef SHB_TARGET_ABI_MINOR
#define SHB_TARGET_ABI_MINOR SHB_ABI_MINOR
#endif

#define SHB_VERSION_STRING "0.1.0"

#endif
