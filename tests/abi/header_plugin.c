/* Compiles <shb/plugin.h> on its own: every public header is self-contained. */
#include <shb/plugin.h>
int shb_abi_header_plugin(void);
int shb_abi_header_plugin(void)
{
	return 0;
}
