/* Compiles <shb/proto.h> on its own: every public header is self-contained. */
#include <shb/proto.h>
int shb_abi_header_proto(void);
int shb_abi_header_proto(void)
{
	return 0;
}
