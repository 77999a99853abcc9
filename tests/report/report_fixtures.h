/* The fixed results the reporter tests feed (report_fixtures.c): basic,
 * allkinds and empty are what a 1.1 core hands over (its smaller structs
 * end before every 1.2 member; their goldens are the 1.1 reporters'
 * output, byte for byte); v12basic and v12full what a 1.2 core does. */
#ifndef SHB_TEST_REPORT_FIXTURES_H
#define SHB_TEST_REPORT_FIXTURES_H

#include <shb/shb.h>

#include "report_fake.h"

#define RESULTS_1_1_SIZE 128
#define RUN_INFO_1_1_SIZE 88

extern const struct shb_hist basic_hist, all_hist, empty_hist;
extern const struct shb_run_info basic_run, all_run, v12basic_run, v12full_run;
extern const struct shb_results basic_results, all_results, empty_results;
extern const struct shb_results v12basic_results, v12full_results;

#endif
