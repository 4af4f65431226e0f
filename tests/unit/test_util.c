/* Unit tests: small helpers (lib/util.c): parse_size, alignment, I/O loops, strings. */
#include "config.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sizes with and without binary units, in every accepted spelling. */
START_TEST(test_parse_size_valid)
{
	static const struct {
		const char *s;
		uint64_t want;
	} ok[] = {
		{"0", 0},
		{"1", 1},
		{"123", 123},
		{"007", 7},
		{"64k", 64ull << 10},
		{"64K", 64ull << 10},
		{"64Ki", 64ull << 10},
		{"64KB", 64ull << 10},
		{"64KiB", 64ull << 10},
		{"512m", 512ull << 20},
		{"512M", 512ull << 20},
		{"512MiB", 512ull << 20},
		{"4G", 4ull << 30},
		{"4g", 4ull << 30},
		{"4GB", 4ull << 30},
		{"1T", 1ull << 40},
		{"16777215T", 16777215ull << 40},
		{"0G", 0},
		{"18446744073709551615", UINT64_MAX},
	};

	for (unsigned i = 0; i < ARRAY_SIZE(ok); i++) {
		uint64_t v = 12345;
		ck_assert_msg(parse_size(ok[i].s, &v) == 0, "\"%s\" refused", ok[i].s);
		ck_assert_msg(v == ok[i].want, "\"%s\" = %llu", ok[i].s, (unsigned long long)v);
	}
}
END_TEST

/* Everything else is an error, and the output is left alone. */
START_TEST(test_parse_size_invalid)
{
	static const char *const bad[] = {
		"",
		"-1",
		"-0",
		" -1",
		"\t-5M",
		"+5",
		" 5",
		"k",
		"M",
		"1.5G",
		"1X",
		"1kk",
		"1KiBx",
		"1 K",
		"1K ",
		"1iB",
		"1B",
		"1Kb",
		"0x10",
		"12abc",
		"18446744073709551616",
		"99999999999999999999999",
		"16777216T",
		"17179869184G",
	};

	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t v = 777;
		int ret = parse_size(bad[i], &v);
		ck_assert_msg(ret == -EINVAL || ret == -ERANGE, "\"%s\" accepted as %llu", bad[i],
			      (unsigned long long)v);
		ck_assert_uint_eq(v, 777);
	}
	ck_assert_int_eq(parse_size(NULL, &(uint64_t){0}), -EINVAL);
	ck_assert_int_eq(parse_size("16777216T", &(uint64_t){0}), -ERANGE);
}
END_TEST

/* ALIGN_* and friends, at the edges of the type. */
START_TEST(test_align_macros)
{
	ck_assert_uint_eq(ALIGN_DOWN(4097ul, 4096), 4096);
	ck_assert_uint_eq(ALIGN_UP(4097ul, 4096), 8192);
	ck_assert_uint_eq(ALIGN_UP(4096ul, 4096), 4096);
	ck_assert_uint_eq(ALIGN_UP(0ul, 4096), 0);
	ck_assert_uint_eq(ALIGN_DOWN(UINT64_MAX, 4096), UINT64_MAX - 4095);
	ck_assert(IS_ALIGNED(0ul, 16));
	ck_assert(IS_ALIGNED(48ul, 16));
	ck_assert(!IS_ALIGNED(40ul, 16));
	ck_assert_int_eq(MIN(3, -2), -2);
	ck_assert_int_eq(MAX(3, -2), 3);
	ck_assert_uint_eq(ARRAY_SIZE((int[7]){0}), 7);
}
END_TEST

/* write_all and read_all move everything through a pipe, in many short pieces. */
START_TEST(test_read_write_all)
{
	enum { N = 1 << 20 };
	char *out = xmalloc(N), *in = xzalloc(N + 16);
	int p[2];
	pid_t pid;

	for (int i = 0; i < N; i++)
		out[i] = (char)(i * 31 + 7);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write_all(p[1], out, N) == N ? 0 : 1);
	}
	close(p[1]);
	/* The pipe holds 64 KiB: read_all must loop over short reads until EOF. */
	ck_assert_int_eq(read_all(p[0], in, N + 16), N);
	ck_assert_int_eq(memcmp(in, out, N), 0);
	ck_assert_int_eq(read_all(p[0], in, 16), 0);
	close(p[0]);
	ck_assert_int_eq(write_all(p[0], out, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(read_all(-1, in, 1), -1);
	free(in);
	free(out);
}
END_TEST

START_TEST(test_strings_and_alloc)
{
	char *s = xasprintf("%s-%d-%#x", "rung", 42, 255);
	char *d;
	unsigned char *z;

	ck_assert_str_eq(s, "rung-42-0xff");
	d = xstrdup(s);
	ck_assert_ptr_ne(d, s);
	ck_assert_str_eq(d, s);
	z = xzalloc(100);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(z[i], 0);
	z = xrealloc(z, 200);
	ck_assert_int_eq(z[99], 0);
	free(xmalloc(0)); /* zero-size allocations are real pointers */
	ck_assert_ptr_nonnull(z);
	free(z);
	free(d);
	free(s);
}
END_TEST

/* monotonic_ns never goes backwards. */
START_TEST(test_monotonic)
{
	uint64_t prev = monotonic_ns();

	ck_assert_uint_gt(prev, 0);
	for (int i = 0; i < 1000; i++) {
		uint64_t now = monotonic_ns();
		ck_assert_uint_ge(now, prev);
		prev = now;
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_size_valid);
	tcase_add_test(tc, test_parse_size_invalid);
	tcase_add_test(tc, test_align_macros);
	tcase_add_test(tc, test_read_write_all);
	tcase_add_test(tc, test_strings_and_alloc);
	tcase_add_test(tc, test_monotonic);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
