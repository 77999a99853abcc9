/* Compiles <shb/host.h> on its own: every public header is self-contained. */
#include <shb/host.h>
int shb_abi_header_host(void);
int shb_abi_header_host(void)
{
	return 0;
}
