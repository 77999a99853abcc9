/* Compiles <shb/types.h> on its own: every public header is self-contained. */
#include <shb/types.h>
int shb_abi_header_types(void);
int shb_abi_header_types(void)
{
	return 0;
}
