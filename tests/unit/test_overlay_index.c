/*
 * Unit tests: the overlay's index of hard-link groups
 * (sentry/fs/overlay_index.h). A group holds one reference on its upper
 * inode, found by the lower file's (device, inode number) and no other
 * key; it goes (and drops its reference) when its last pending lower name
 * settles, or when the index is destroyed; against a model, many groups.
 */
#include "config.h"
#include "sentry/fs/overlay_index.h"
#include "unit.h"

#include <check.h>

static int evicted;
static void count_evict(struct inode *i)
{
	evicted++;
}
static const struct inode_ops counted_ops = {.evict = count_evict};
static struct super_block *sb;

static void setup(void)
{
	sb = sb_new(NULL, "test", 0);
	evicted = 0;
}

static void teardown(void)
{
	sb_put(sb);
}

START_TEST(test_find_add_settle)
{
	struct ovl_index ix;
	struct inode *up = inode_new(sb, &counted_ops, S_IFREG | 0644), *got;

	ovl_index_init(&ix);
	ck_assert_ptr_null(ovl_index_find(&ix, 1, 100));
	ovl_index_add(&ix, 1, 100, up, 2);
	ck_assert_int_eq(up->refs, 2);
	got = ovl_index_find(&ix, 1, 100);
	ck_assert_ptr_eq(got, up);
	ck_assert_int_eq(up->refs, 3);
	inode_put(got);
	/* The key is both numbers. */
	ck_assert_ptr_null(ovl_index_find(&ix, 2, 100));
	ck_assert_ptr_null(ovl_index_find(&ix, 1, 101));
	/* A second add of the same group keeps the first. */
	ovl_index_add(&ix, 1, 100, up, 5);
	ck_assert_int_eq(up->refs, 2);
	ovl_index_settle(&ix, 1, 100);
	ck_assert_ptr_eq((got = ovl_index_find(&ix, 1, 100)), up);
	inode_put(got);
	ovl_index_settle(&ix, 1, 100); /* the last pending name */
	ck_assert_ptr_null(ovl_index_find(&ix, 1, 100));
	ck_assert_int_eq(up->refs, 1);
	ovl_index_settle(&ix, 1, 100); /* no group: nothing happens */
	inode_put(up);
	ck_assert_int_eq(evicted, 1);
	ovl_index_destroy(&ix);
}
END_TEST

START_TEST(test_destroy_drops_references)
{
	struct ovl_index ix;
	struct inode *a = inode_new(sb, &counted_ops, S_IFREG), *b = inode_new(sb, &counted_ops, 0);

	ovl_index_init(&ix);
	ovl_index_add(&ix, 7, 1, a, 1);
	ovl_index_add(&ix, 7, 2, b, 3);
	inode_put(a);
	inode_put(b);
	ck_assert_int_eq(evicted, 0);
	ovl_index_destroy(&ix);
	ck_assert_int_eq(evicted, 2);
}
END_TEST

#define NGROUPS 500

START_TEST(test_many_groups)
{
	struct ovl_index ix;
	struct inode *ups[NGROUPS];
	unsigned pending[NGROUPS];
	uint64_t rnd = 42;
	int live = NGROUPS;

	ovl_index_init(&ix);
	for (int k = 0; k < NGROUPS; k++) {
		ups[k] = inode_new(sb, &counted_ops, S_IFREG);
		pending[k] = 1 + (unsigned)(unit_rand(&rnd) % 4);
		/* Keys that share a device or a number with others. */
		ovl_index_add(&ix, (uint64_t)k % 7, (uint64_t)k / 7, ups[k], pending[k]);
		inode_put(ups[k]);
	}
	while (live > 0) {
		int k = (int)(unit_rand(&rnd) % NGROUPS);
		struct inode *got = ovl_index_find(&ix, (uint64_t)k % 7, (uint64_t)k / 7);
		if (!pending[k]) {
			ck_assert_ptr_null(got);
			continue;
		}
		ck_assert_ptr_eq(got, ups[k]);
		inode_put(got);
		ovl_index_settle(&ix, (uint64_t)k % 7, (uint64_t)k / 7);
		if (--pending[k] == 0)
			live--;
		ck_assert_int_eq(evicted, NGROUPS - live);
	}
	ck_assert(rb_empty(&ix.groups));
	ovl_index_destroy(&ix);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("overlay index");
	TCase *tc = tcase_create("index");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_find_add_settle);
	tcase_add_test(tc, test_destroy_drops_references);
	tcase_add_test(tc, test_many_groups);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
