/* Unit tests: the sandbox's memory account (sentry/mm/memacct.c) and what
 * the page store of tmpfs files makes of it. */
#include "config.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/memacct.h"
#include "sentry/mm/pagestore.h"
#include "lib/error.h"
#include "platform/platform.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PG  GUEST_PAGE_SIZE
#define MIB (1ull << 20)
/* What refusable charges may fill of a small limit: all but its 1/64, the
 * headroom kept for the guest's page faults. */
#define ROOM(limit) ((limit) - (limit) / 64)

static struct memfile *new_memfile(uint64_t limit)
{
	struct rung_error err = {0};
	struct memfile *mf = NULL;

	ck_assert_int_eq(memfile_create(1ull << 32, &mf, &err), 0);
	memacct_set_limit(&mf->acct, limit);
	return mf;
}

/* No limit: everything fits, and the room says so. */
START_TEST(test_no_limit)
{
	struct memfile *mf = new_memfile(0);

	ck_assert_uint_eq(memacct_room(&mf->acct), UINT64_MAX);
	ck_assert(memacct_fits(&mf->acct, UINT64_MAX));
	ck_assert_int_eq(memacct_charge(&mf->acct, 1ull << 40), 0);
	memacct_uncharge(&mf->acct, 1ull << 40);
	ck_assert_uint_eq(memacct_kmem(&mf->acct), 0);
	memfile_destroy(mf);
}
END_TEST

/* Kernel buffers are charged up to the limit (less its headroom) and no
 * further; what is given back can be charged again. */
START_TEST(test_charge_to_the_limit)
{
	struct memfile *mf = new_memfile(4 * MIB);

	ck_assert_uint_eq(memacct_usage(&mf->acct), 0);
	ck_assert_int_eq(memacct_charge(&mf->acct, 3 * MIB), 0);
	ck_assert_int_eq(memacct_charge(&mf->acct, 2 * MIB), -ENOMEM);
	ck_assert_uint_eq(memacct_kmem(&mf->acct), 3 * MIB);
	ck_assert_int_eq(memacct_charge(&mf->acct, ROOM(4 * MIB) - 3 * MIB), 0);
	ck_assert_uint_eq(memacct_room(&mf->acct), 0);
	ck_assert_int_eq(memacct_charge(&mf->acct, 1), -ENOMEM);
	memacct_uncharge(&mf->acct, 2 * MIB);
	ck_assert_uint_eq(memacct_room(&mf->acct), 2 * MIB);
	ck_assert_int_eq(memacct_charge(&mf->acct, 2 * MIB + 1), -ENOMEM);
	memacct_charge_force(&mf->acct, 3 * MIB);
	ck_assert_uint_eq(memacct_room(&mf->acct), 0);
	ck_assert_int_eq(memacct_charge(&mf->acct, 1), -ENOMEM);
	memfile_destroy(mf);
}
END_TEST

/* The memory file's pages count as the host has them: touched pages in,
 * punched pages out. */
START_TEST(test_file_pages_measured)
{
	struct memfile *mf = new_memfile(64 * MIB);
	uint64_t off;

	ck_assert_int_eq(memfile_alloc(mf, 8 * MIB, &off), 0);
	ck_assert_uint_eq(memacct_file_bytes(&mf->acct), 0); /* handed out is not held */
	memset(memfile_ptr(mf, off), 1, 2 * MIB);
	ck_assert_uint_eq(memacct_file_bytes(&mf->acct), 2 * MIB);
	ck_assert_uint_eq(memacct_room(&mf->acct), ROOM(64 * MIB) - 2 * MIB);
	ck_assert_int_eq(memacct_charge(&mf->acct, ROOM(64 * MIB) - 2 * MIB + 1), -ENOMEM);
	memfile_free(mf, off, 8 * MIB);
	ck_assert_uint_eq(memacct_file_bytes(&mf->acct), 0);
	memfile_destroy(mf);
}
END_TEST

/* A page store (a tmpfs file) writes what fits: a short count at the
 * limit, then ENOSPC; rewriting pages it has costs nothing. */
START_TEST(test_pagestore_write_to_the_limit)
{
	struct memfile *mf = new_memfile(1 * MIB);
	struct pagestore ps;
	char *buf = malloc(2 * MIB);

	memset(buf, 3, 2 * MIB);
	ps_init(&ps, mf);
	ck_assert_int_eq(ps_write(&ps, buf, 512 * 1024, 0), 512 * 1024);
	ck_assert_int_eq(ps_write(&ps, buf, 2 * MIB, 512 * 1024), ROOM(MIB) - 512 * 1024);
	ck_assert_int_eq(ps_write(&ps, buf, PG, 1 * MIB), -ENOSPC);
	ck_assert_int_eq(ps_write(&ps, buf, ROOM(MIB), 0), ROOM(MIB)); /* its own pages */
	ck_assert_uint_eq(memacct_room(&mf->acct), 0);
	/* Zeroed whole pages go back to the host: room again. */
	ps_zero_range(&ps, 0, 1 * MIB);
	ck_assert_uint_eq(memacct_room(&mf->acct), ROOM(MIB));
	ck_assert_int_eq(ps_write(&ps, buf, PG, 4 * MIB), PG);
	ps_release(&ps);
	free(buf);
	memfile_destroy(mf);
}
END_TEST

/* fallocate is all or nothing. */
START_TEST(test_pagestore_allocate)
{
	struct memfile *mf = new_memfile(4 * MIB);
	struct pagestore ps;

	ps_init(&ps, mf);
	ck_assert_int_eq(ps_allocate(&ps, 0, 8 * MIB), -ENOSPC);
	ck_assert_uint_eq(memacct_file_bytes(&mf->acct), 0);
	ck_assert_int_eq(ps_allocate(&ps, 0, 3 * MIB), 0);
	ck_assert_uint_eq(memacct_file_bytes(&mf->acct), 3 * MIB);
	ck_assert_int_eq(ps_allocate(&ps, 0, 3 * MIB), 0); /* held already: free */
	ck_assert_int_eq(ps_allocate(&ps, 3 * MIB, 2 * MIB), -ENOSPC);
	ps_release(&ps);
	memfile_destroy(mf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memacct");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_no_limit);
	tcase_add_test(tc, test_charge_to_the_limit);
	tcase_add_test(tc, test_file_pages_measured);
	tcase_add_test(tc, test_pagestore_write_to_the_limit);
	tcase_add_test(tc, test_pagestore_allocate);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
