/* Compiles <shb/report.h> on its own: every public header is self-contained. */
#include <shb/report.h>
int shb_abi_header_report(void);
int shb_abi_header_report(void)
{
	return 0;
}
