/* Compiles <shb/results.h> on its own: every public header is self-contained. */
#include <shb/results.h>
int shb_abi_header_results(void);
int shb_abi_header_results(void)
{
	return 0;
}
