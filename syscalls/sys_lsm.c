/*
 * The LSM system calls (Linux 6.8). The sandbox has one security module,
 * capabilities, which provides no process attributes: lsm_list_modules
 * names it, and the attribute calls answer as a kernel whose modules
 * provide none (security/lsm_syscalls.c, security_{get,set}selfattr).
 * A module the sandbox implements later (landlock: LSM_ID_LANDLOCK, 110)
 * joins the list.
 */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"

#include <errno.h>

#define LSM_ID_UNDEF	  0
#define LSM_ID_CAPABILITY 100
#define LSM_ATTR_UNDEF	  0
#define LSM_FLAG_SINGLE	  0x0001

/* struct lsm_ctx: id, flags, len, ctx_len, then ctx_len bytes. */
struct guest_lsm_ctx {
	uint64_t id;
	uint64_t flags;
	uint64_t len;
	uint64_t ctx_len;
};

/* lsm_list_modules(ids, size, flags) */
SYSCALL(lsm_list_modules)
{
	static const uint64_t ids[] = {LSM_ID_CAPABILITY};
	uint32_t total = sizeof(ids), usize;

	if ((uint32_t)a->a[2])
		return -EINVAL;
	if (mm_copy_in(t->mm, &usize, a->a[1], sizeof(usize)) < 0)
		return -EFAULT;
	if (mm_copy_out(t->mm, a->a[1], &total, sizeof(total)) < 0)
		return -EFAULT;
	if (usize < total)
		return -E2BIG;
	if (mm_copy_out(t->mm, a->a[0], ids, sizeof(ids)) < 0)
		return -EFAULT;
	return (long)(sizeof(ids) / sizeof(ids[0]));
}

/* lsm_get_self_attr(attr, ctx, size, flags): no module has attributes. */
SYSCALL(lsm_get_self_attr)
{
	uint32_t attr = (uint32_t)a->a[0], flags = (uint32_t)a->a[3], left, total = 0;

	if (attr == LSM_ATTR_UNDEF || !a->a[2])
		return -EINVAL;
	if (mm_copy_in(t->mm, &left, a->a[2], sizeof(left)) < 0)
		return -EFAULT;
	if (flags) {
		struct guest_lsm_ctx ctx;
		if (flags != LSM_FLAG_SINGLE || !a->a[1])
			return -EINVAL;
		if (mm_copy_in(t->mm, &ctx, a->a[1], sizeof(ctx)) < 0)
			return -EFAULT;
		if (ctx.id == LSM_ID_UNDEF)
			return -EINVAL;
	}
	if (mm_copy_out(t->mm, a->a[2], &total, sizeof(total)) < 0)
		return -EFAULT;
	return -EOPNOTSUPP;
}

/* lsm_set_self_attr(attr, ctx, size, flags): no module takes one. */
SYSCALL(lsm_set_self_attr)
{
	uint32_t size = (uint32_t)a->a[2];
	struct guest_lsm_ctx ctx;
	uint64_t required;

	if ((uint32_t)a->a[3])
		return -EINVAL;
	if (size < sizeof(ctx))
		return -EINVAL;
	if (size > 4096)
		return -E2BIG;
	/* Linux copies all size bytes: a fault anywhere in them is EFAULT. */
	for (uint32_t off = 0; off < size; off += sizeof(ctx)) {
		struct guest_lsm_ctx chunk;
		uint32_t n = size - off < sizeof(chunk) ? size - off : (uint32_t)sizeof(chunk);
		if (mm_copy_in(t->mm, &chunk, a->a[1] + off, n) < 0)
			return -EFAULT;
		if (off == 0)
			ctx = chunk;
	}
	if (size < ctx.len || __builtin_add_overflow(sizeof(ctx), ctx.ctx_len, &required) ||
	    ctx.len < required)
		return -EINVAL;
	return -EOPNOTSUPP;
}
