/* shb plugin test kit: run a plugin in a test process without the core.
 *
 *   shb/kit/clock.h   the controllable clock every call takes `now` from
 *   shb/kit/host.h    the fake host: records callbacks, checks the rules
 *   shb/kit/plugin.h  the plugin under test (entry pointer or dlopen)
 *   shb/kit/driver.h  module and connection driver
 *   shb/kit/split.h   same input split at every offset, same outcome
 *   shb/kit/hist.h    a histogram for reporter tests
 *   shb/kit/report.h  memory sink and fabricated results for reporters
 *   shb/kit/metrics.h a protocol's metrics (ABI 1.4) as the plugin fed them
 *
 * Build: pkg-config shb-plugin-kit-1 (links libshb-plugin-kit.a and -ldl).
 * The kit has no dependency beyond libc and the SDK headers. */
#ifndef SHB_KIT_H
#define SHB_KIT_H

#include <shb/kit/clock.h>
#include <shb/kit/hist.h>
#include <shb/kit/host.h>
#include <shb/kit/plugin.h>
#include <shb/kit/driver.h>
#include <shb/kit/split.h>
#include <shb/kit/report.h>
#include <shb/kit/metrics.h>

#endif
