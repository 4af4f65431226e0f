/* Unit tests: the CPUID feature set guests see (sentry/kernel/cpuid.c, docs/cpuid.md). */
#include "config.h"
#include "sentry/kernel/cpuid.h"
#include "unit.h"

#include <check.h>
#include <cpuid.h>

/* A host with every bit set: what survives is exactly the allowed set. */
static void all_ones(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	r[0] = r[1] = r[2] = r[3] = 0xffffffffu;
	cpuid_filter(leaf, sub, r);
}

START_TEST(test_leaf1_features)
{
	uint32_t r[4];

	all_ones(1, 0, r);
	ck_assert(r[2] & (1u << 20));	      /* SSE4.2 */
	ck_assert(r[2] & (1u << 28));	      /* AVX */
	ck_assert(!(r[2] & (1u << 31)));      /* no hypervisor bit */
	ck_assert(!(r[2] & (1u << 21)));      /* no x2APIC */
	ck_assert(!(r[2] & (1u << 3)));	      /* no MONITOR */
	ck_assert(r[3] & (1u << 26));	      /* SSE2 */
	ck_assert_uint_eq(r[0], 0xffffffffu); /* family/model/stepping: the host's */
	ck_assert_uint_eq(r[1], 0xffffffffu);
}
END_TEST

START_TEST(test_leaf7_features)
{
	uint32_t r[4];

	all_ones(7, 0, r);
	ck_assert_uint_eq(r[0], 0);	 /* no subleaf 1 and beyond */
	ck_assert(r[1] & (1u << 5));	 /* AVX2 */
	ck_assert(r[1] & (1u << 3));	 /* BMI1 */
	ck_assert(!(r[1] & (1u << 16))); /* no AVX-512F */
	ck_assert(!(r[1] & (1u << 4)));	 /* no HLE */
	ck_assert(!(r[1] & (1u << 11))); /* no RTM */
	ck_assert(!(r[2] & (1u << 1)));	 /* no AVX512_VBMI */
	all_ones(7, 1, r);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
}
END_TEST

START_TEST(test_sizes_pass_through)
{
	uint32_t r[4];

	/* XSAVE sizes and the vendor: the host's values, untouched. */
	all_ones(0xd, 0, r);
	ck_assert_uint_eq(r[0] & r[1] & r[2] & r[3], 0xffffffffu);
	all_ones(0, 0, r);
	ck_assert_uint_eq(r[1], 0xffffffffu);
	all_ones(0x40000000, 0, r);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
}
END_TEST

START_TEST(test_subset_of_host)
{
	/* Whatever the guest sees, this host has. */
	static const uint32_t leaves[][2] = {{1, 0}, {7, 0}, {0x80000001, 0}};

	for (unsigned i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		uint32_t h[4], g[4];
		__cpuid_count(leaves[i][0], leaves[i][1], h[0], h[1], h[2], h[3]);
		for (int j = 0; j < 4; j++)
			g[j] = h[j];
		cpuid_filter(leaves[i][0], leaves[i][1], g);
		for (int j = 1; j < 4; j++)
			ck_assert_uint_eq(g[j] & ~h[j], 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpuid");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_leaf1_features);
	tcase_add_test(tc, test_leaf7_features);
	tcase_add_test(tc, test_sizes_pass_through);
	tcase_add_test(tc, test_subset_of_host);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
