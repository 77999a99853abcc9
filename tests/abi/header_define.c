/* Compiles <shb/define.h> on its own: every public header is self-contained. */
#include <shb/define.h>
int shb_abi_header_define(void);
int shb_abi_header_define(void)
{
	return 0;
}
