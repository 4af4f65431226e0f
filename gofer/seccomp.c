/*
 * The gofer's host system call allowlist: every call the serving loop makes
 * after confinement, and why. Anything else kills the process.
 *
 * The file operations io_uring offers (openat2, statx, mkdirat, unlinkat,
 * renameat2, linkat, symlinkat, read/write, fsync, close, recvmsg/sendmsg)
 * run inside the ring, whose opcodes are restricted separately (server.c);
 * they are not system calls of the gofer and are not listed here. The ring
 * is created before the filter, so io_uring_setup/io_uring_register are not
 * allowed either.
 */
#include "config.h"
#include "gofer/serve.h"
#include "lib/error.h"
#include "lib/util.h"

#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/mman.h>

enum arg_rule {
	ANY,	     /* no condition on the arguments */
	FROM_PROCFD, /* argument 0 (the dirfd) is /proc/self/fd */
	NO_EXEC,     /* argument 2 (prot) has no PROT_EXEC */
	STDIO,	     /* argument 0 (the fd) is 0, 1 or 2 */
};

static const struct {
	const char *name;
	enum arg_rule rule;
	const char *why;
} allowed[] = {
	/* the loop */
	{"io_uring_enter", ANY, "submit steps and wait for completions"},
	/* synchronous file operations io_uring does not offer */
	{"getdents64", ANY, "GETDENTS"},
	{"lseek", ANY, "GETDENTS: seek the directory to the cookie"},
	{"readlinkat", ANY, "READLINK on an O_PATH symlink fd (empty path)"},
	{"fchownat", ANY, "SETATTR uid/gid, owner of new nodes (empty path, no follow)"},
	{"fchmodat", FROM_PROCFD, "SETATTR mode, set-id bits of new nodes, via /proc/self/fd/N"},
	{"utimensat", ANY, "SETATTR times (empty path, no follow)"},
	{"openat", FROM_PROCFD, "reopen an O_PATH fd for truncate and xattrs, via /proc/self/fd/N"},
	{"ftruncate", ANY, "SETATTR size"},
	{"fallocate", ANY, "FALLOCATE"},
	{"mknodat", ANY, "MKNOD (regular files, fifos, socket placeholders)"},
	{"fstatfs", ANY, "STATFS"},
	{"fgetxattr", ANY, "GETXATTR"},
	{"fsetxattr", ANY, "SETXATTR"},
	{"flistxattr", ANY, "LISTXATTR"},
	{"fremovexattr", ANY, "REMOVEXATTR"},
	{"close", ANY, "release handles, fids, donated fds, closed channels"},
	/* the process */
	{"write", STDIO, "log lines to stderr"},
	{"brk", ANY, "malloc"},
	{"mmap", NO_EXEC, "malloc (never executable)"},
	{"mprotect", NO_EXEC, "malloc arenas (never executable)"},
	{"munmap", ANY, "free"},
	{"mremap", ANY, "realloc"},
	{"madvise", ANY, "free (trimming)"},
	{"futex", ANY, "libc locks"},
	{"clock_gettime", ANY, "log timestamps when the vDSO falls back to the kernel"},
	{"gettimeofday", ANY, "log timestamps when the vDSO falls back to the kernel"},
	{"time", ANY, "log timestamps when the vDSO falls back to the kernel"},
	{"rt_sigreturn", ANY, "return from a signal handler"},
	{"exit", ANY, "a thread ends"},
	{"exit_group", ANY, "the gofer ends"},
};

int gofer_seccomp_install(int procfd, struct rung_error *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int ret;

	if (!ctx)
		return rung_error_make(err, ENOMEM, "seccomp_init");
	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i].name);

		if (nr == __NR_SCMP_ERROR) {
			ret = rung_error_make(err, EINVAL, "seccomp: unknown system call %s",
					      allowed[i].name);
			goto out;
		}
		switch (allowed[i].rule) {
		case ANY:
			ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
			break;
		case FROM_PROCFD:
			ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					       SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)procfd));
			break;
		case NO_EXEC:
			ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
			break;
		case STDIO:
			ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A0(SCMP_CMP_LE, 2));
			break;
		default:
			ret = -EINVAL;
		}
		if (ret < 0) {
			ret = rung_error_make(err, -ret, "seccomp: allow %s", allowed[i].name);
			goto out;
		}
	}
	ret = seccomp_load(ctx);
	if (ret < 0)
		ret = rung_error_make(err, -ret, "seccomp: load the filter");
out:
	seccomp_release(ctx);
	return ret;
}
