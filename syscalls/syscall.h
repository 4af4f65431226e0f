/*
 * The system call table: one entry per x86-64 number with its name, handler,
 * argument formats (for --strace) and support status. Handlers share one
 * signature and return the result or -errno; they never allocate error objects.
 */
#ifndef RUNG_SYSCALL_H
#define RUNG_SYSCALL_H

#include <stdint.h>

#include "syscalls/names.h"

struct task;

struct syscall_args {
	uint64_t nr;
	uint64_t a[6];
};

typedef long (*syscall_fn)(struct task *t, const struct syscall_args *a);

enum sys_status {
	SYS_UNSUPPORTED = 0, /* -ENOSYS (or the error in the note) */
	SYS_PARTIAL,	     /* implemented, with limits stated in the note */
	SYS_FULL,
};

/* How --strace shows an argument or a result. */
enum arg_fmt {
	A_NONE = 0,
	A_INT,	      /* signed decimal */
	A_UINT,	      /* unsigned decimal */
	A_HEX,	      /* 0x... */
	A_PTR,	      /* pointer, NULL when 0 */
	A_FD,	      /* file descriptor */
	A_STR,	      /* NUL-terminated guest string */
	A_BUF_IN,     /* buffer the guest passes in; its length is the next argument */
	A_BUF_OUT,    /* buffer the kernel fills; shown after the call, length = result */
	A_OCT,	      /* mode bits */
	A_PROT,	      /* PROT_* */
	A_MMAP_FLAGS, /* MAP_* */
	A_SIGNAL,     /* signal number */
	A_SIGHOW,     /* SIG_BLOCK/UNBLOCK/SETMASK */
	A_CLOCK,      /* clock id */
	A_TIMESPEC,   /* struct timespec * (shown when readable) */
	A_FCNTL_CMD,
	A_IOCTL_REQ,
	A_ARCH_PRCTL,
	A_RLIMIT_RES,
	A_MADVICE,
	A_OPEN_FLAGS,
	A_DIRFD,       /* AT_FDCWD or an fd */
	A_STRV,	       /* NULL-terminated array of strings (argv) */
	A_POLLFDS,     /* struct pollfd array; its length is the next argument */
	A_EPOLL_OP,    /* EPOLL_CTL_* */
	A_EPOLL_EVENT, /* struct epoll_event * (shown when readable) */
	A_SOCKADDR,    /* struct sockaddr the guest passes in; its length is the next argument */

	/* process attributes */
	A_PRCTL,	/* prctl option */
	A_SCHED_POLICY, /* SCHED_* (with SCHED_RESET_ON_FORK) */
};

struct syscall_desc {
	syscall_fn fn; /* NULL: unsupported */
	enum sys_status status;
	uint8_t nargs;
	uint8_t fmt[6];
	uint8_t ret;	  /* A_INT (default) or A_HEX for addresses */
	const char *note; /* what is partial, or why unsupported */
	int err;	  /* unsupported: the errno the guest gets (0: ENOSYS) */
};

#define SYSCALL_TABLE_SIZE (SYSCALL_MAX_NR + 1)

/* The entry for nr (its name: syscall_name()), or NULL outside the table. */
const struct syscall_desc *syscall_lookup(uint64_t nr);
/* The name of nr, or NULL for a number Linux does not assign. */
const char *syscall_name(uint64_t nr);
const char *syscall_status_name(enum sys_status s);

/* Run the guest system call the task stopped at and store its result. */
void syscall_dispatch(struct task *t);

/* --strace output for one call (before and after, as one line). */
void strace_enter(struct task *t, const struct syscall_desc *d, const struct syscall_args *a);
void strace_exit(struct task *t, const struct syscall_desc *d, const struct syscall_args *a,
		 long ret);

#endif
