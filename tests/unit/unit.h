/* Shared helpers of the Check unit tests (header only). */
#ifndef RUNG_TESTS_UNIT_H
#define RUNG_TESTS_UNIT_H

#include <check.h>
#include <stdint.h>

/* Run every test of s and return the process exit status (TAP via CK_TAP_LOG_FILE_NAME). */
static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/* A small deterministic PRNG (xorshift64*), so that randomized tests repeat exactly. */
static inline uint64_t unit_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif
