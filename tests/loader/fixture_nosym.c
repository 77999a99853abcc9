/* Fixture: a well-formed shared object that is not an shb plugin. */
#include <shb/shb.h>

SHB_PLUGIN_EXPORT int shb_fixture_not_a_plugin(int x);

SHB_PLUGIN_EXPORT int shb_fixture_not_a_plugin(int x)
{
	return x + 1;
}
