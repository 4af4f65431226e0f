/*
 * Guest test: lsm_list_modules, lsm_get_self_attr, lsm_set_self_attr
 * (Linux 6.8), by their numbers. What holds on any kernel whose modules
 * give a process no attributes (the sandbox's, where capability is the only
 * module; natively, whichever this host has): capability is listed,
 * the size rules (E2BIG with the size needed), the flag and argument checks
 * in Linux's order, and EOPNOTSUPP where no module answers.
 */
#include "guest.h"

#define NR_lsm_get_self_attr 459
#define NR_lsm_set_self_attr 460
#define NR_lsm_list_modules  461
#define LSM_ID_CAPABILITY    100
#define LSM_ID_SELINUX	     101
#define LSM_ATTR_CURRENT     100
#define LSM_ATTR_KEYCREATE   103
#define LSM_FLAG_SINGLE	     1

struct lsm_ctx {
	uint64_t id, flags, len, ctx_len;
	uint8_t ctx[16];
};

int main(void)
{
	uint64_t ids[64];
	uint32_t size, need;
	long n;
	int found;
	struct lsm_ctx ctx = {0};

	/* lsm_list_modules */
	size = 0;
	CHECK_ERRNO(syscall(NR_lsm_list_modules, ids, &size, 0), E2BIG, "a list into 0 bytes");
	need = size;
	CHECK(need >= 8 && need % 8 == 0, "the size needed is a multiple of 8");
	size = sizeof(ids);
	n = syscall(NR_lsm_list_modules, ids, &size, 0);
	CHECK(n >= 1 && size == need && (uint32_t)n * 8 == size, "the count matches the size");
	found = 0;
	for (long i = 0; i < n && i < 64; i++)
		found |= ids[i] == LSM_ID_CAPABILITY;
	CHECK(found, "capability is listed");
	CHECK_ERRNO(syscall(NR_lsm_list_modules, ids, &size, 1), EINVAL, "a list with flags");
	CHECK_ERRNO(syscall(NR_lsm_list_modules, ids, NULL, 0), EFAULT, "a NULL size");
	size = sizeof(ids);
	CHECK_ERRNO(syscall(NR_lsm_list_modules, NULL, &size, 0), EFAULT, "a NULL list");
	CHECK_EQ(size, need, "the size was written before the list faulted");

	/* lsm_get_self_attr: KEYCREATE, which only SELinux provides. */
	size = sizeof(ctx);
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, 0, &ctx, &size, 0), EINVAL, "attribute 0");
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, NULL, 0), EINVAL,
		    "a NULL size");
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, (uint32_t *)8, 0),
		    EFAULT, "an unreadable size");
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, &size, 2), EINVAL,
		    "an unknown flag");
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, NULL, &size,
			    LSM_FLAG_SINGLE),
		    EINVAL, "LSM_FLAG_SINGLE without a context");
	ctx.id = 0;
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, &size,
			    LSM_FLAG_SINGLE),
		    EINVAL, "LSM_FLAG_SINGLE of LSM_ID_UNDEF");
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, (void *)8, &size,
			    LSM_FLAG_SINGLE),
		    EFAULT, "LSM_FLAG_SINGLE of an unreadable context");
	if (syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, &size, 0) >= 0) {
		printf("SKIP: a module of this host provides keycreate attributes\n");
		return 77;
	}
	size = sizeof(ctx);
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, &size, 0), EOPNOTSUPP,
		    "no module provides keycreate");
	CHECK_EQ(size, 0, "and the size is set to 0");
	ctx.id = LSM_ID_SELINUX;
	size = sizeof(ctx);
	CHECK_ERRNO(syscall(NR_lsm_get_self_attr, LSM_ATTR_KEYCREATE, &ctx, &size,
			    LSM_FLAG_SINGLE),
		    EOPNOTSUPP, "nor one asked for by id");

	/* lsm_set_self_attr */
	ctx = (struct lsm_ctx){.id = LSM_ID_SELINUX, .len = 32 + 4, .ctx_len = 4};
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, &ctx, 36, 1), EINVAL,
		    "set with flags");
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, &ctx, 31, 0), EINVAL,
		    "set of less than a context");
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, &ctx, 4097, 0), E2BIG,
		    "set of more than a page");
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, (void *)8, 36, 0), EFAULT,
		    "set of an unreadable context");
	ctx.len = 40;
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, &ctx, 36, 0), EINVAL,
		    "set of a context longer than the size");
	ctx.len = 34;
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, &ctx, 36, 0), EINVAL,
		    "set of a context shorter than its data");
	ctx.len = 36;
	CHECK_ERRNO(syscall(NR_lsm_set_self_attr, LSM_ATTR_KEYCREATE, &ctx, 36, 0), EOPNOTSUPP,
		    "set where no module takes it");
	return GUEST_DONE();
}
