/* Stands in for the real table of QUIC calls while plugins/h3/conn is not
 * built: the tests replace the module's table with the fake anyway. */
#include "h3p_tests.h"

const struct shb_h3_quic_ops shb_h3_quic_ops_real = {0};
