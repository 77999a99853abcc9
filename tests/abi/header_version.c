/* Compiles <shb/version.h> on its own: every public header is self-contained. */
#include <shb/version.h>
int shb_abi_header_version(void);
int shb_abi_header_version(void)
{
	return 0;
}
