/* Helpers shared by the QUIC crypto tests. */
#ifndef SHB_TEST_CRYPTO_UTIL_H
#define SHB_TEST_CRYPTO_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <CUnit/CUnit.h>

/* Decodes the lowercase hex string `hex` into out (cap bytes); returns the
 * byte count, or 0 on bad input or overflow (a test bug). */
size_t th_unhex(const char *hex, uint8_t *out, size_t cap);

/* CU assertion that buf[0..len) equals the bytes of `hex`. */
#define TH_ASSERT_HEX(buf, len, hex)                                           \
	do {                                                                   \
		uint8_t th_exp_[2048];                                         \
		size_t th_n_ = th_unhex((hex), th_exp_, sizeof(th_exp_));      \
		CU_ASSERT_EQUAL_FATAL((size_t)(len), th_n_);                   \
		CU_ASSERT_EQUAL(memcmp((buf), th_exp_, th_n_), 0);             \
	} while (0)

extern CU_TestInfo shb_test_quic_keys[];
extern CU_TestInfo shb_test_quic_retry[];
extern CU_TestInfo shb_test_quic_tls[];
/* Creates (and frees) the certificates of the quic_tls suite. */
int shb_test_quic_tls_init(void);
int shb_test_quic_tls_clean(void);

#endif
