/* Compiles <shb/hist.h> on its own: every public header is self-contained. */
#include <shb/hist.h>
int shb_abi_header_hist(void);
int shb_abi_header_hist(void)
{
	return 0;
}
