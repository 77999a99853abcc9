/* Compiles <shb/script.h> on its own: every public header is self-contained. */
#include <shb/script.h>
int shb_abi_header_script(void);
int shb_abi_header_script(void)
{
	return 0;
}
