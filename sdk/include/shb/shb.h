/* shb plugin SDK: everything a protocol, reporter or script engine plugin
 * needs. */
#ifndef SHB_SHB_H
#define SHB_SHB_H

#include <shb/types.h>
#include <shb/version.h>
#include <shb/plugin.h>
#include <shb/hist.h>
#include <shb/proto.h>
#include <shb/results.h>
#include <shb/report.h>
#include <shb/script.h>
#include <shb/host.h>
#include <shb/define.h>

#endif
