/* execve and execveat. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/ptrace.h"
#include "syscalls/util.h"
#include "sentry/kernel/task.h"
#include "sentry/loader/elf.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on what an execve may ask the sentry to copy (Linux's limits are
 * checked again when the stack is built). */
#define EXEC_MAX_STRINGS (1u << 20)
#define EXEC_MAX_BYTES	 (32u << 20)

/* Copy a NULL-terminated array of guest strings. NULL means empty. */
static long strv_in(struct task *t, uint64_t uaddr, char ***out, size_t *bytes)
{
	size_t n = 0, cap = 16;
	char **v = xzalloc(cap * sizeof(*v));
	char *buf = xmalloc(EXEC_MAX_ARG_STRLEN);

	while (uaddr) {
		uint64_t p;
		long len;
		if (n >= EXEC_MAX_STRINGS) {
			strv_free(v);
			free(buf);
			return -E2BIG;
		}
		if (mm_copy_in(t->mm, &p, uaddr + n * sizeof(p), sizeof(p)) < 0) {
			strv_free(v);
			free(buf);
			return -EFAULT;
		}
		if (!p)
			break;
		len = mm_strncpy_in(t->mm, buf, p, EXEC_MAX_ARG_STRLEN);
		if (len < 0 || (*bytes += (size_t)len + 1) > EXEC_MAX_BYTES) {
			strv_free(v);
			free(buf);
			return len == -EFAULT ? -EFAULT : -E2BIG;
		}
		if (n + 1 >= cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = xstrdup(buf);
		v[n] = NULL;
	}
	free(buf);
	*out = v;
	return 0;
}

static long do_execve(struct task *t, int dirfd, uint64_t upath, uint64_t uargv, uint64_t uenvp,
		      int flags)
{
	char *path = xmalloc(VFS_PATH_MAX);
	char **argv = NULL, **envp = NULL;
	const char *why = NULL;
	size_t bytes = 0;
	long ret;

	if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		free(path);
		return -EINVAL;
	}
	ret = (flags & AT_EMPTY_PATH) ? path_in_empty_ok(t, upath, path) : path_in(t, upath, path);
	if (ret == 0)
		ret = strv_in(t, uargv, &argv, &bytes);
	if (ret == 0)
		ret = strv_in(t, uenvp, &envp, &bytes);
	if (ret == 0)
		ret = task_exec(t, dirfd, path, argv, envp, flags, &why);
	if (ret == 0)
		ptrace_exec(t);
	strv_free(argv);
	strv_free(envp);
	free(path);
	return ret;
}

SYSCALL(execve)
{
	return do_execve(t, AT_FDCWD, a->a[0], a->a[1], a->a[2], 0);
}

SYSCALL(execveat)
{
	return do_execve(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], (int)a->a[4]);
}
