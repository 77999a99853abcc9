/* Compiles <shb/shb.h> on its own: every public header is self-contained. */
#include <shb/shb.h>
int shb_abi_header_shb(void);
int shb_abi_header_shb(void)
{
	return 0;
}
