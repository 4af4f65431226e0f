/*
 * Unit tests: POSIX ACLs (sentry/vfs/posix_acl.h) without a filesystem.
 * The xattr form parsed and written back (ids of the unnamed entries
 * normalised, the errors of a bad value), posix_acl_valid's order and
 * counts, a list folded into a mode, chmod's and creation's updates, and
 * the permission check of named users, groups and the mask.
 */
#include "config.h"
#include "sentry/vfs/posix_acl.h"
#include "sentry/kernel/creds.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define U ACL_UNDEFINED_ID

struct blob {
	uint8_t b[4 + 16 * 8];
	size_t n;
};

static struct blob blob_of(uint32_t version, const struct posix_acl_entry *e, unsigned count)
{
	struct blob x;

	memcpy(x.b, &version, 4);
	for (unsigned k = 0; k < count; k++) {
		memcpy(x.b + 4 + 8 * k, &e[k].tag, 2);
		memcpy(x.b + 6 + 8 * k, &e[k].perm, 2);
		memcpy(x.b + 8 + 8 * k, &e[k].id, 4);
	}
	x.n = 4 + 8 * (size_t)count;
	return x;
}

static struct posix_acl *acl_of(const struct posix_acl_entry *e, unsigned count)
{
	struct posix_acl *acl = malloc(sizeof(*acl) + count * sizeof(*e));

	acl->count = count;
	memcpy(acl->e, e, count * sizeof(*e));
	return acl;
}

#define ENTRIES(...) ((const struct posix_acl_entry[]){__VA_ARGS__})
#define COUNT(...)   (unsigned)(sizeof(ENTRIES(__VA_ARGS__)) / sizeof(struct posix_acl_entry))
#define ACL(...)     acl_of(ENTRIES(__VA_ARGS__), COUNT(__VA_ARGS__))
#define BLOB(...)    blob_of(2, ENTRIES(__VA_ARGS__), COUNT(__VA_ARGS__))

static int valid(struct posix_acl *acl)
{
	int ret = posix_acl_valid(acl);

	free(acl);
	return ret;
}

START_TEST(test_parse_and_write_back)
{
	/* The unnamed entries' ids are not kept: they come back undefined. */
	struct blob in = BLOB({ACL_USER_OBJ, 6, 7}, {ACL_USER, 4, 1000}, {ACL_GROUP_OBJ, 4, U},
			      {ACL_GROUP, 2, 2000}, {ACL_MASK, 6, 9}, {ACL_OTHER, 4, U});
	struct blob want = BLOB({ACL_USER_OBJ, 6, U}, {ACL_USER, 4, 1000}, {ACL_GROUP_OBJ, 4, U},
				{ACL_GROUP, 2, 2000}, {ACL_MASK, 6, U}, {ACL_OTHER, 4, U});
	struct posix_acl *acl;
	uint8_t out[sizeof(in.b)];

	ck_assert_int_eq(posix_acl_from_xattr(NULL, in.b, in.n, &acl), 0);
	ck_assert_ptr_nonnull(acl);
	ck_assert_uint_eq(acl->count, 6);
	ck_assert_uint_eq(acl->e[1].id, 1000);
	ck_assert_uint_eq(acl->e[3].id, 2000);
	ck_assert_uint_eq(posix_acl_xattr_size(acl->count), in.n);
	posix_acl_to_xattr(NULL, acl, out);
	ck_assert_mem_eq(out, want.b, want.n);
	free(acl);
}
END_TEST

START_TEST(test_parse_errors)
{
	struct blob ok = BLOB({ACL_USER_OBJ, 6, U}, {ACL_GROUP_OBJ, 4, U}, {ACL_OTHER, 4, U});
	struct blob bad;
	struct posix_acl *acl = (struct posix_acl *)&ok;

	ck_assert_int_eq(posix_acl_from_xattr(NULL, ok.b, 3, &acl), -EINVAL);
	ck_assert_ptr_null(acl);
	ck_assert_int_eq(posix_acl_from_xattr(NULL, ok.b, ok.n - 1, &acl), -EINVAL);
	bad = blob_of(1, NULL, 0);
	ck_assert_int_eq(posix_acl_from_xattr(NULL, bad.b, bad.n, &acl), -EOPNOTSUPP);
	bad = BLOB({ACL_USER_OBJ, 6, U}, {0x40, 4, U}, {ACL_OTHER, 4, U});
	ck_assert_int_eq(posix_acl_from_xattr(NULL, bad.b, bad.n, &acl), -EINVAL);
	bad = BLOB({ACL_USER_OBJ, 6, U}, {ACL_USER, 4, U}, {ACL_GROUP_OBJ, 4, U}, {ACL_MASK, 4, U},
		   {ACL_OTHER, 4, U});
	ck_assert_int_eq(posix_acl_from_xattr(NULL, bad.b, bad.n, &acl), -EINVAL);
	bad = BLOB({ACL_USER_OBJ, 6, U}, {ACL_GROUP_OBJ, 4, U}, {ACL_GROUP, 4, U}, {ACL_MASK, 4, U},
		   {ACL_OTHER, 4, U});
	ck_assert_int_eq(posix_acl_from_xattr(NULL, bad.b, bad.n, &acl), -EINVAL);
	/* A bare header is an empty list (removal), not an error. */
	bad = blob_of(2, NULL, 0);
	ck_assert_int_eq(posix_acl_from_xattr(NULL, bad.b, bad.n, &acl), 0);
	ck_assert_ptr_null(acl);
}
END_TEST

START_TEST(test_valid)
{
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_OTHER, 4, U})),
			 0);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_USER, 4, 1}, {ACL_USER, 6, 1},
				   {ACL_GROUP_OBJ, 5, U}, {ACL_GROUP, 1, 2}, {ACL_MASK, 7, U},
				   {ACL_OTHER, 4, U})),
			 0);
	/* A mask without named entries is allowed. */
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_MASK, 7, U},
				   {ACL_OTHER, 4, U})),
			 0);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 8, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_USER_OBJ, 7, U},
				   {ACL_GROUP_OBJ, 5, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U},
				   {ACL_GROUP_OBJ, 5, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_OTHER, 4, U},
				   {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_MASK, 7, U},
				   {ACL_MASK, 7, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_USER, 4, 1}, {ACL_GROUP_OBJ, 5, U},
				   {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_GROUP_OBJ, 5, U}, {ACL_USER_OBJ, 7, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_USER, 4, 1},
				   {ACL_MASK, 7, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U})), -EINVAL);
	ck_assert_int_eq(valid(ACL({ACL_USER, 4, 1}, {ACL_MASK, 4, U}, {ACL_OTHER, 4, U})),
			 -EINVAL);
}
END_TEST

START_TEST(test_equiv_mode)
{
	struct posix_acl *min = ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 5, U}, {ACL_OTHER, 4, U});
	struct posix_acl *ext = ACL({ACL_USER_OBJ, 6, U}, {ACL_USER, 4, 1}, {ACL_GROUP_OBJ, 4, U},
				    {ACL_MASK, 7, U}, {ACL_OTHER, 4, U});
	uint32_t mode = S_IFREG | S_ISGID | 0644;

	ck_assert_int_eq(posix_acl_equiv_mode(min, &mode), 0);
	ck_assert_uint_eq(mode, S_IFREG | S_ISGID | 0754);
	ck_assert_int_eq(posix_acl_equiv_mode(ext, &mode), 1);
	ck_assert_uint_eq(mode, S_IFREG | S_ISGID | 0674); /* the mask is the group bits */
	ck_assert_int_eq(posix_acl_equiv_mode(NULL, &mode), 0);
	ck_assert_uint_eq(mode, S_IFREG | S_ISGID | 0674);
	free(min);
	free(ext);
}
END_TEST

START_TEST(test_chmod_entries)
{
	struct posix_acl *masked = ACL({ACL_USER_OBJ, 6, U}, {ACL_USER, 6, 1},
				       {ACL_GROUP_OBJ, 4, U}, {ACL_MASK, 4, U}, {ACL_OTHER, 4, U});
	struct posix_acl *plain =
		ACL({ACL_USER_OBJ, 6, U}, {ACL_GROUP_OBJ, 4, U}, {ACL_OTHER, 4, U});

	posix_acl_chmod_entries(masked, 0460);
	ck_assert_uint_eq(masked->e[0].perm, 4);
	ck_assert_uint_eq(masked->e[1].perm, 6); /* named entries stay */
	ck_assert_uint_eq(masked->e[2].perm, 4); /* the group entry too: the mask moves */
	ck_assert_uint_eq(masked->e[3].perm, 6);
	ck_assert_uint_eq(masked->e[4].perm, 0);
	posix_acl_chmod_entries(plain, 0751);
	ck_assert_uint_eq(plain->e[0].perm, 7);
	ck_assert_uint_eq(plain->e[1].perm, 5);
	ck_assert_uint_eq(plain->e[2].perm, 1);
	free(masked);
	free(plain);
}
END_TEST

START_TEST(test_create_masq)
{
	struct posix_acl *dflt = ACL({ACL_USER_OBJ, 7, U}, {ACL_USER, 5, 1}, {ACL_GROUP_OBJ, 5, U},
				     {ACL_MASK, 7, U}, {ACL_OTHER, 5, U});
	struct posix_acl *min = ACL({ACL_USER_OBJ, 7, U}, {ACL_GROUP_OBJ, 7, U}, {ACL_OTHER, 5, U});
	uint32_t mode = S_IFREG | 0666;

	ck_assert_int_eq(posix_acl_create_masq(dflt, &mode), 1);
	ck_assert_uint_eq(mode, S_IFREG | 0664);
	ck_assert_uint_eq(dflt->e[0].perm, 6);
	ck_assert_uint_eq(dflt->e[1].perm, 5); /* named: not limited, the mask is */
	ck_assert_uint_eq(dflt->e[2].perm, 5);
	ck_assert_uint_eq(dflt->e[3].perm, 6);
	ck_assert_uint_eq(dflt->e[4].perm, 4);
	mode = S_IFDIR | 0750;
	ck_assert_int_eq(posix_acl_create_masq(min, &mode), 0);
	ck_assert_uint_eq(mode, S_IFDIR | 0750);
	ck_assert_uint_eq(min->e[1].perm, 5); /* no mask: the group entry meets the mode */
	free(dflt);
	free(min);
}
END_TEST

START_TEST(test_permission)
{
	struct posix_acl *acl =
		ACL({ACL_USER_OBJ, 6, U}, {ACL_USER, 7, 1000}, {ACL_GROUP_OBJ, 2, U},
		    {ACL_GROUP, 6, 2000}, {ACL_MASK, 4, U}, {ACL_OTHER, 1, U});
	struct creds c = {.fsuid = 1000, .fsgid = 1};
	const int r = ACL_READ, w = ACL_WRITE, x = ACL_EXECUTE;

	/* A named user: its entry under the mask. */
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, r), 0);
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, w), -EACCES);
	/* The owner: its entry alone. */
	ck_assert_int_eq(posix_acl_permission(&c, 1000, 50, acl, w), 0);
	/* A named group under the mask; in no group: other. */
	c = (struct creds){.fsuid = 7, .fsgid = 2000};
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, r), 0);
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, r | w), -EACCES);
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, x), -EACCES);
	c = (struct creds){.fsuid = 7, .fsgid = 8};
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, x), 0);
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, r), -EACCES);
	/* The owning group matches but lacks the bits: denied, other not asked. */
	c = (struct creds){.fsuid = 7, .fsgid = 50};
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, x), -EACCES);
	/* Of two groups of the caller's, one that grants it all is enough. */
	c = (struct creds){.fsuid = 7, .fsgid = 50, .ngroups = 1, .groups = {2000}};
	ck_assert_int_eq(posix_acl_permission(&c, 0, 50, acl, r), 0);
	free(acl);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_int_eq(posix_acl_type("system.posix_acl_access"), ACL_TYPE_ACCESS);
	ck_assert_int_eq(posix_acl_type("system.posix_acl_default"), ACL_TYPE_DEFAULT);
	ck_assert_int_eq(posix_acl_type("system.posix_acl"), -1);
	ck_assert_int_eq(posix_acl_type("user.posix_acl_access"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("posix acl");
	TCase *tc = tcase_create("acl");

	tcase_add_test(tc, test_parse_and_write_back);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_equiv_mode);
	tcase_add_test(tc, test_chmod_entries);
	tcase_add_test(tc, test_create_masq);
	tcase_add_test(tc, test_permission);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
