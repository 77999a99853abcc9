/* The controllable clock (clock.h). */
#include <shb/kit/clock.h>

void shb_kit_clock_set(struct shb_kit_clock *c, shb_tstamp now)
{
	c->now = now;
}

void shb_kit_clock_advance(struct shb_kit_clock *c, shb_tstamp ns)
{
	c->now += ns;
}

shb_tstamp shb_kit_clock_now(const struct shb_kit_clock *c)
{
	return c->now;
}
