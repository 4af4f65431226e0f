/*
 * The system call table and the dispatcher. Every number has a name (from
 * syscalls/names.h); implemented ones have a handler, a status and the
 * argument formats --strace uses. `rung help syscalls` prints this table,
 * and docs/syscalls.md is generated from it.
 */
#include "config.h"
#include "syscalls/syscall.h"
#include "syscalls/handlers.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/seccomp.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <sys/syscall.h>

#define FULL(name, n, ...) \
	[SYS_##name] = {.fn = sys_##name, .status = SYS_FULL, .nargs = n, .fmt = {__VA_ARGS__}}
#define PART(name, note_, n, ...)              \
	[SYS_##name] = {.fn = sys_##name,      \
			.status = SYS_PARTIAL, \
			.nargs = n,            \
			.fmt = {__VA_ARGS__},  \
			.note = note_}
#define NOSYS(name, note_) [SYS_##name] = {.status = SYS_UNSUPPORTED, .note = note_}
/* A number glibc's headers may not name yet. */
#define NOSYS_NR(nr, note_) [nr] = {.status = SYS_UNSUPPORTED, .note = note_}
/* Unsupported with another answer than ENOSYS: what Linux gives a caller
 * without the capability (a privileged operation the sandbox refuses). */
#define REFUSED(name, err_, note_) \
	[SYS_##name] = {.status = SYS_UNSUPPORTED, .note = note_, .err = err_}

/* Numbers newer than the host's headers may name. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_futex_wake
#define SYS_futex_wake	  454
#define SYS_futex_wait	  455
#define SYS_futex_requeue 456
#endif
#ifndef SYS_lsm_get_self_attr
#define SYS_lsm_get_self_attr 459
#define SYS_lsm_set_self_attr 460
#define SYS_lsm_list_modules  461
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat	  463
#define SYS_getxattrat	  464
#define SYS_listxattrat	  465
#define SYS_removexattrat 466
#endif

/* Reasons shared by several rows. */
#define R_OBSOLETE "obsolete: ENOSYS, as Linux 6.1 on x86-64"
#define R_NEWER	   "newer than Linux 6.1, the kernel the sandbox presents: ENOSYS there too"
#define R_HOST	   "refused by design: the host's (EPERM, as in a container without the capability)"
#define R_MOUNTS   "not yet: namespaces and mounts inside the sandbox (ENOSYS)"

static const struct syscall_desc table[SYSCALL_TABLE_SIZE] = {
	/* files and descriptors */
	FULL(read, 3, A_FD, A_BUF_OUT, A_UINT), FULL(write, 3, A_FD, A_BUF_IN, A_UINT),
	FULL(readv, 3, A_FD, A_PTR, A_INT), FULL(writev, 3, A_FD, A_PTR, A_INT),
	FULL(pread64, 4, A_FD, A_BUF_OUT, A_UINT, A_INT),
	FULL(pwrite64, 4, A_FD, A_BUF_IN, A_UINT, A_INT),
	FULL(preadv, 4, A_FD, A_PTR, A_INT, A_INT), FULL(pwritev, 4, A_FD, A_PTR, A_INT, A_INT),
	PART(preadv2, "RWF_NOWAIT only on regular files (else EOPNOTSUPP); RWF_HIPRI is a hint", 6,
	     A_FD, A_PTR, A_INT, A_INT, A_INT, A_HEX),
	PART(pwritev2,
	     "as preadv2; RWF_APPEND finds the end by fstat, so it is not atomic against writes "
	     "through other descriptors",
	     6, A_FD, A_PTR, A_INT, A_INT, A_INT, A_HEX),
	FULL(lseek, 3, A_FD, A_INT, A_INT), FULL(open, 3, A_STR, A_OPEN_FLAGS, A_OCT),
	FULL(openat, 4, A_DIRFD, A_STR, A_OPEN_FLAGS, A_OCT),
	FULL(openat2, 4, A_DIRFD, A_STR, A_PTR, A_UINT), FULL(creat, 2, A_STR, A_OCT),
	FULL(close_range, 3, A_UINT, A_UINT, A_HEX), FULL(pipe, 1, A_PTR),
	FULL(pipe2, 2, A_PTR, A_OPEN_FLAGS),
	PART(memfd_create,
	     "sealing as 6.1; MFD_HUGETLB: ENOSYS (no hugetlbfs); MFD_NOEXEC_SEAL, MFD_EXEC: "
	     "EINVAL",
	     2, A_STR, A_HEX),
	FULL(getdents64, 3, A_FD, A_PTR, A_UINT), FULL(getdents, 3, A_FD, A_PTR, A_UINT),
	FULL(chdir, 1, A_STR), FULL(fchdir, 1, A_FD), FULL(getcwd, 2, A_PTR, A_UINT),
	FULL(chroot, 1, A_STR), FULL(umask, 1, A_OCT), FULL(mkdir, 2, A_STR, A_OCT),
	FULL(mkdirat, 3, A_DIRFD, A_STR, A_OCT), FULL(rmdir, 1, A_STR), FULL(unlink, 1, A_STR),
	FULL(unlinkat, 3, A_DIRFD, A_STR, A_HEX), FULL(rename, 2, A_STR, A_STR),
	FULL(renameat, 4, A_DIRFD, A_STR, A_DIRFD, A_STR),
	PART(renameat2,
	     "RENAME_WHITEOUT is EINVAL; on the rootfs overlay, moving a directory with lower "
	     "entries is EXDEV (as overlayfs without redirect_dir)",
	     5, A_DIRFD, A_STR, A_DIRFD, A_STR, A_HEX),
	FULL(link, 2, A_STR, A_STR), FULL(linkat, 5, A_DIRFD, A_STR, A_DIRFD, A_STR, A_HEX),
	FULL(symlink, 2, A_STR, A_STR), FULL(symlinkat, 3, A_STR, A_DIRFD, A_STR),
	PART(mknod, "regular files, fifos, sockets; device nodes open the sandbox's own devices", 3,
	     A_STR, A_OCT, A_HEX),
	PART(mknodat, "as mknod", 4, A_DIRFD, A_STR, A_OCT, A_HEX), FULL(chmod, 2, A_STR, A_OCT),
	FULL(fchmod, 2, A_FD, A_OCT), FULL(fchmodat, 3, A_DIRFD, A_STR, A_OCT),
	FULL(chown, 3, A_STR, A_INT, A_INT), FULL(lchown, 3, A_STR, A_INT, A_INT),
	FULL(fchown, 3, A_FD, A_INT, A_INT), FULL(fchownat, 5, A_DIRFD, A_STR, A_INT, A_INT, A_HEX),
	FULL(utimensat, 4, A_DIRFD, A_STR, A_PTR, A_HEX), FULL(utimes, 2, A_STR, A_PTR),
	FULL(futimesat, 3, A_DIRFD, A_STR, A_PTR), FULL(utime, 2, A_STR, A_PTR),
	FULL(truncate, 2, A_STR, A_INT), FULL(ftruncate, 2, A_FD, A_INT),
	PART(fallocate, "mode 0, KEEP_SIZE and PUNCH_HOLE; others EOPNOTSUPP", 4, A_FD, A_HEX,
	     A_INT, A_INT),
	FULL(fsync, 1, A_FD), FULL(fadvise64, 4, A_FD, A_INT, A_INT, A_INT),
	FULL(fdatasync, 1, A_FD), FULL(sync, 0), FULL(syncfs, 1, A_FD),
	PART(getxattr,
	     "user., trusted. and security. names; system.posix_acl_access/default on tmpfs and "
	     "overlays",
	     4, A_STR, A_STR, A_PTR, A_UINT),
	PART(lgetxattr, "as getxattr", 4, A_STR, A_STR, A_PTR, A_UINT),
	PART(fgetxattr, "as getxattr", 4, A_FD, A_STR, A_PTR, A_UINT),
	PART(setxattr, "as getxattr", 5, A_STR, A_STR, A_PTR, A_UINT, A_HEX),
	PART(lsetxattr, "as getxattr", 5, A_STR, A_STR, A_PTR, A_UINT, A_HEX),
	PART(fsetxattr, "as getxattr", 5, A_FD, A_STR, A_PTR, A_UINT, A_HEX),
	FULL(listxattr, 3, A_STR, A_PTR, A_UINT), FULL(llistxattr, 3, A_STR, A_PTR, A_UINT),
	FULL(flistxattr, 3, A_FD, A_PTR, A_UINT), PART(removexattr, "as getxattr", 2, A_STR, A_STR),
	PART(lremovexattr, "as getxattr", 2, A_STR, A_STR),
	PART(fremovexattr, "as getxattr", 2, A_FD, A_STR),
	FULL(sendfile, 4, A_FD, A_FD, A_PTR, A_UINT),
	FULL(copy_file_range, 6, A_FD, A_PTR, A_FD, A_PTR, A_UINT, A_HEX),
	PART(splice,
	     "pipes, fifos, files, sockets (copied); host pipe to a non-pipe: 64 KiB a call, "
	     "bytes the other end refuses are lost; SPLICE_F_NONBLOCK: the pipe end only",
	     6, A_FD, A_PTR, A_FD, A_PTR, A_UINT, A_HEX),
	PART(tee, "a host pipe (inherited stdio) is not a pipe to it: EINVAL", 4, A_FD, A_FD,
	     A_UINT, A_HEX),
	PART(vmsplice,
	     "the bytes are copied at the call (on Linux the pipe may refer to the pages, so "
	     "later stores to them show); SPLICE_F_GIFT is a hint; a host pipe (inherited "
	     "stdio): EBADF",
	     4, A_FD, A_PTR, A_UINT, A_HEX),
	FULL(flock, 2, A_FD, A_HEX), FULL(close, 1, A_FD), FULL(dup, 1, A_FD),
	FULL(dup2, 2, A_FD, A_FD), FULL(dup3, 3, A_FD, A_FD, A_OPEN_FLAGS),
	PART(fcntl,
	     "descriptors, flags, record and OFD locks, pipe sizes, memfd seals, F_NOTIFY; leases "
	     "(never broken); O_ASYNC: SIGIO for pipes and sockets (no owner permission check)",
	     3, A_FD, A_FCNTL_CMD, A_HEX),
	PART(ioctl,
	     "ttys, ptys (job control, termios, sizes, TIOCGPTPEER), FIONREAD, FIONBIO, "
	     "FIOASYNC, FIOCLEX, socket owners, SIOCGIF*, SIOCGSTAMP(NS); TIOCPKT, TIOCVHANGUP, "
	     "TIOCCONS, locked termios, SIOCSIF*: ENOTTY",
	     3, A_FD, A_IOCTL_REQ, A_HEX),
	REFUSED(vhangup, EPERM,
		"EPERM, as without CAP_SYS_TTY_CONFIG (a container's root): terminals hang up when "
		"a pty's master closes"),
	FULL(fstat, 2, A_FD, A_PTR), FULL(stat, 2, A_STR, A_PTR), FULL(lstat, 2, A_STR, A_PTR),
	FULL(newfstatat, 4, A_DIRFD, A_STR, A_PTR, A_HEX),
	PART(statx, "basic stats; no btime", 5, A_DIRFD, A_STR, A_HEX, A_HEX, A_PTR),
	FULL(statfs, 2, A_STR, A_PTR), FULL(fstatfs, 2, A_FD, A_PTR), FULL(access, 2, A_STR, A_OCT),
	FULL(faccessat, 3, A_DIRFD, A_STR, A_OCT),
	FULL(faccessat2, 4, A_DIRFD, A_STR, A_OCT, A_HEX), FULL(readlink, 3, A_STR, A_PTR, A_UINT),
	FULL(readlinkat, 4, A_DIRFD, A_STR, A_PTR, A_UINT),
	/* I/O multiplexing */
	FULL(poll, 3, A_POLLFDS, A_UINT, A_INT),
	FULL(ppoll, 5, A_POLLFDS, A_UINT, A_TIMESPEC, A_PTR, A_UINT),
	FULL(select, 5, A_INT, A_PTR, A_PTR, A_PTR, A_PTR),
	FULL(pselect6, 6, A_INT, A_PTR, A_PTR, A_PTR, A_TIMESPEC, A_PTR),
	FULL(epoll_create, 1, A_INT), FULL(epoll_create1, 1, A_OPEN_FLAGS),
	PART(epoll_ctl, "EPOLLWAKEUP is accepted and means nothing", 4, A_FD, A_EPOLL_OP, A_FD,
	     A_EPOLL_EVENT),
	FULL(epoll_wait, 4, A_FD, A_PTR, A_INT, A_INT),
	FULL(epoll_pwait, 6, A_FD, A_PTR, A_INT, A_INT, A_PTR, A_UINT),
	FULL(epoll_pwait2, 6, A_FD, A_PTR, A_INT, A_TIMESPEC, A_PTR, A_UINT),
	FULL(eventfd, 1, A_UINT), FULL(eventfd2, 2, A_UINT, A_OPEN_FLAGS), FULL(inotify_init, 0),
	FULL(inotify_init1, 1, A_OPEN_FLAGS),
	PART(inotify_add_watch,
	     "events for changes made in the sandbox, on every filesystem (tmpfs, the overlay, "
	     "gofer-backed files and bind mounts); not for changes made on the host. No "
	     "IN_UNMOUNT: the guest cannot unmount",
	     3, A_FD, A_STR, A_HEX),
	FULL(inotify_rm_watch, 2, A_FD, A_INT),
	PART(timerfd_create,
	     "host timerfds on the same clocks; alarm clocks EPERM (no CAP_WAKE_ALARM)", 2, A_CLOCK,
	     A_OPEN_FLAGS),
	FULL(timerfd_settime, 4, A_FD, A_HEX, A_PTR, A_PTR), FULL(timerfd_gettime, 2, A_FD, A_PTR),
	/* memory */
	[SYS_brk] = {.fn = sys_brk, .status = SYS_FULL, .nargs = 1, .fmt = {A_HEX}, .ret = A_HEX},
	[SYS_mmap] = {.fn = sys_mmap,
		      .status = SYS_PARTIAL,
		      .nargs = 6,
		      .ret = A_HEX,
		      .fmt = {A_HEX, A_UINT, A_PROT, A_MMAP_FLAGS, A_FD, A_HEX},
		      .note = "no huge pages (ENOMEM), no MAP_SYNC (EOPNOTSUPP); host-file pages "
			      "written back on msync, munmap, fsync, close; SIGBUS past EOF, not "
			      "after a host-side truncation"},
	FULL(munmap, 2, A_HEX, A_UINT), FULL(mprotect, 3, A_HEX, A_UINT, A_PROT),
	[SYS_mremap] = {.fn = sys_mremap,
			.status = SYS_FULL,
			.nargs = 5,
			.ret = A_HEX,
			.fmt = {A_HEX, A_UINT, A_UINT, A_HEX, A_HEX}},
	PART(msync, "MS_SYNC writes back (no host fsync); MS_ASYNC has nothing to start", 3, A_HEX,
	     A_UINT, A_HEX),
	PART(mlock, "a mark (VmLck): the sandbox's memory is never swapped out", 2, A_HEX, A_UINT),
	PART(mlock2, "as mlock; MLOCK_ONFAULT is the same", 3, A_HEX, A_UINT, A_HEX),
	FULL(munlock, 2, A_HEX, A_UINT),
	PART(mlockall, "as mlock; MCL_FUTURE marks later mappings", 1, A_HEX), FULL(munlockall, 0),
	PART(mincore, "resident: the host holds the sandbox's page (file pages count once mapped)",
	     3, A_HEX, A_UINT, A_PTR),
	PART(madvise,
	     "DONTNEED, FREE, REMOVE, fork advice honoured; other advice accepted as hints", 3,
	     A_HEX, A_UINT, A_MADVICE),
	/* process */
	FULL(exit, 1, A_INT), FULL(exit_group, 1, A_INT), FULL(getpid, 0), FULL(gettid, 0),
	FULL(getppid, 0), FULL(getuid, 0), FULL(geteuid, 0), FULL(getgid, 0), FULL(getegid, 0),
	FULL(set_tid_address, 1, A_PTR),
	PART(set_robust_list, "walked at thread exit (2048 entries at most, as Linux)", 2, A_PTR,
	     A_UINT),
	PART(arch_prctl, "SET/GET_FS, SET/GET_GS, GET_CPUID; SET_CPUID is ENODEV", 2, A_ARCH_PRCTL,
	     A_HEX),
	PART(prlimit64,
	     "any process (Linux's permission rules); NOFILE, NPROC, STACK, AS, FSIZE, "
	     "SIGPENDING (queued signals per user, EAGAIN for sigqueue past it) enforced; no "
	     "core file is ever written, whatever CORE is",
	     4, A_INT, A_RLIMIT_RES, A_PTR, A_PTR),
	FULL(getrlimit, 2, A_RLIMIT_RES, A_PTR), FULL(setrlimit, 2, A_RLIMIT_RES, A_PTR),
	PART(uname,
	     "fixed release: Linux 6.1.0-rung x86_64; nodename and domainname are the sandbox's", 1,
	     A_PTR),
	FULL(sethostname, 2, A_STR, A_UINT), FULL(setdomainname, 2, A_STR, A_UINT),
	FULL(sched_yield, 0), FULL(getrandom, 3, A_PTR, A_UINT, A_HEX),
	PART(seccomp,
	     "filters run in the sentry; no NEW_LISTENER (EINVAL), so USER_NOTIF is ENOSYS; TRACE "
	     "is ENOSYS (no tracer); strict mode cannot make RDTSC fault",
	     3, A_INT, A_HEX, A_PTR),
	/* time */
	FULL(clock_gettime, 2, A_CLOCK, A_PTR), FULL(clock_getres, 2, A_CLOCK, A_PTR),
	FULL(gettimeofday, 2, A_PTR, A_PTR), FULL(time, 1, A_PTR),
	FULL(nanosleep, 2, A_TIMESPEC, A_PTR),
	PART(clock_nanosleep, "alarm clocks EOPNOTSUPP (no RTC); CPU clocks checked every 4 ms", 4,
	     A_CLOCK, A_HEX, A_TIMESPEC, A_PTR),
	PART(getcpu, "the host CPU, folded into the sandbox's CPU count", 3, A_PTR, A_PTR, A_PTR),
	/* timers */
	FULL(alarm, 1, A_UINT), FULL(getitimer, 2, A_INT, A_PTR),
	PART(setitimer,
	     "VIRTUAL and PROF both count the guest's user+system CPU time, checked every 4 ms", 3,
	     A_INT, A_PTR, A_PTR),
	PART(timer_create,
	     "no alarm clocks (EOPNOTSUPP); CPU-clock timers checked every 4 ms while the "
	     "process runs",
	     3, A_CLOCK, A_PTR, A_PTR),
	FULL(timer_settime, 4, A_INT, A_HEX, A_PTR, A_PTR), FULL(timer_gettime, 2, A_INT, A_PTR),
	FULL(timer_getoverrun, 1, A_INT), FULL(timer_delete, 1, A_INT),
	/* signals */
	FULL(rt_sigaction, 4, A_SIGNAL, A_PTR, A_PTR, A_UINT),
	FULL(rt_sigprocmask, 4, A_SIGHOW, A_PTR, A_PTR, A_UINT),
	PART(futex,
	     "every op; PI futexes hand ownership over as Linux, but lend no priority (the host "
	     "schedules guest threads)",
	     6, A_PTR, A_HEX, A_UINT, A_PTR, A_PTR, A_HEX),
	FULL(kill, 2, A_INT, A_SIGNAL), FULL(tgkill, 3, A_INT, A_INT, A_SIGNAL),
	FULL(tkill, 2, A_INT, A_SIGNAL), FULL(rt_sigpending, 2, A_PTR, A_UINT),
	FULL(rt_sigsuspend, 2, A_PTR, A_UINT), FULL(pause, 0),
	FULL(rt_sigtimedwait, 4, A_PTR, A_PTR, A_TIMESPEC, A_UINT), FULL(rt_sigreturn, 0),
	FULL(sigaltstack, 2, A_PTR, A_PTR), FULL(restart_syscall, 0),
	FULL(rt_sigqueueinfo, 3, A_INT, A_SIGNAL, A_PTR),
	FULL(rt_tgsigqueueinfo, 4, A_INT, A_INT, A_SIGNAL, A_PTR),
	FULL(signalfd, 3, A_FD, A_PTR, A_UINT), FULL(signalfd4, 4, A_FD, A_PTR, A_UINT, A_HEX),
	/* processes */
	PART(clone3,
	     "as clone; set_tid: EPERM (the sandbox chooses every pid); CLONE_INTO_CGROUP: "
	     "EOPNOTSUPP",
	     2, A_PTR, A_UINT),
	PART(clone, "CLONE_NEW*: as unshare (a pid namespace numbers from 1); no CLONE_NEWTIME", 5,
	     A_HEX, A_PTR, A_PTR, A_PTR, A_HEX),
	FULL(fork, 0), FULL(vfork, 0), FULL(wait4, 4, A_INT, A_PTR, A_HEX, A_PTR),
	FULL(waitid, 5, A_INT, A_INT, A_PTR, A_HEX, A_PTR), FULL(setpgid, 2, A_INT, A_INT),
	FULL(getpgid, 1, A_INT), FULL(getpgrp, 0), FULL(setsid, 0), FULL(getsid, 1, A_INT),
	FULL(execve, 3, A_STR, A_STRV, A_STRV),
	FULL(execveat, 5, A_DIRFD, A_STR, A_STRV, A_STRV, A_HEX),
	/* sockets (sentry/net): AF_UNIX inside the sentry; other families come with the network stack */
	PART(socket,
	     "AF_UNIX; AF_INET/AF_INET6 per --network (docs/network.md); AF_NETLINK NETLINK_ROUTE "
	     "(else EPROTONOSUPPORT); AF_PACKET, AF_BLUETOOTH, any other family: EAFNOSUPPORT",
	     3, A_INT, A_HEX, A_INT),
	PART(socketpair,
	     "AF_UNIX pairs; any other family: socket()'s error, else EOPNOTSUPP, as Linux "
	     "(AF_TIPC: EAFNOSUPPORT, as a kernel without it)",
	     4, A_INT, A_HEX, A_INT, A_PTR),
	PART(bind,
	     "AF_UNIX: paths, abstract names, autobind (gofer filesystems: a host node no host "
	     "process can reach); inet: docs/network.md (one listener per address)",
	     3, A_FD, A_SOCKADDR, A_INT),
	PART(connect,
	     "AF_INET/AF_INET6: the egress policy first (a denied destination: ECONNREFUSED, "
	     "logged; docs/network.md)",
	     3, A_FD, A_SOCKADDR, A_INT),
	FULL(listen, 2, A_FD, A_INT), FULL(accept, 3, A_FD, A_PTR, A_PTR),
	FULL(accept4, 4, A_FD, A_PTR, A_PTR, A_HEX), FULL(getsockname, 3, A_FD, A_PTR, A_PTR),
	FULL(getpeername, 3, A_FD, A_PTR, A_PTR), FULL(shutdown, 2, A_FD, A_INT),
	PART(setsockopt,
	     "AF_UNIX: SOL_SOCKET buffers, timeouts, SO_PASSCRED, SO_REUSEADDR, SO_LINGER, "
	     "SO_PRIORITY, SO_RCVLOWAT, flags (else ENOPROTOOPT; levels EOPNOTSUPP); AF_INET/6: "
	     "docs/netstack.md",
	     5, A_FD, A_INT, A_INT, A_PTR, A_INT),
	PART(getsockopt,
	     "SOL_SOCKET: SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ERROR, SO_PEERCRED, SO_ACCEPTCONN, "
	     "buffers, timeouts; AF_INET/6: TCP_INFO from lwIP, docs/netstack.md; else EOPNOTSUPP",
	     5, A_FD, A_INT, A_INT, A_PTR, A_PTR),
	PART(sendto,
	     "no MSG_OOB on AF_UNIX (EOPNOTSUPP); AF_INET/AF_INET6: the egress policy checks the "
	     "destination (denied: EACCES, logged)",
	     6, A_FD, A_BUF_IN, A_UINT, A_HEX, A_SOCKADDR, A_INT),
	PART(recvfrom, "no MSG_OOB (EOPNOTSUPP), no SO_PEEK_OFF; MSG_ERRQUEUE as recvmsg", 6, A_FD,
	     A_PTR, A_UINT, A_HEX, A_PTR, A_PTR),
	PART(sendmsg,
	     "SCM_RIGHTS and SCM_CREDENTIALS; no MSG_OOB on AF_UNIX (EOPNOTSUPP); "
	     "AF_INET/AF_INET6: "
	     "the egress policy checks msg_name (EACCES), no ancillary data (host mode)",
	     3, A_FD, A_PTR, A_HEX),
	PART(recvmsg,
	     "SCM_RIGHTS, SCM_CREDENTIALS; no MSG_OOB; MSG_ERRQUEUE: UDP's ICMP errors "
	     "(IP_RECVERR), else EAGAIN; host mode: no ancillary data, no error queue",
	     3, A_FD, A_PTR, A_HEX),
	PART(sendmmsg, "as sendmsg", 4, A_FD, A_PTR, A_UINT, A_HEX),
	PART(recvmmsg, "as recvmsg; the timeout is checked after each message, as Linux", 5, A_FD,
	     A_PTR, A_UINT, A_HEX, A_PTR),
	/* credentials */
	FULL(setuid, 1, A_INT), FULL(setgid, 1, A_INT), FULL(setreuid, 2, A_INT, A_INT),
	FULL(setregid, 2, A_INT, A_INT), FULL(setresuid, 3, A_INT, A_INT, A_INT),
	FULL(setresgid, 3, A_INT, A_INT, A_INT), FULL(getresuid, 3, A_PTR, A_PTR, A_PTR),
	FULL(getresgid, 3, A_PTR, A_PTR, A_PTR), FULL(setfsuid, 1, A_INT), FULL(setfsgid, 1, A_INT),
	FULL(getgroups, 2, A_INT, A_PTR),
	PART(setgroups, "at most 256 groups (EINVAL beyond; /proc/sys/kernel/ngroups_max says so)",
	     2, A_INT, A_PTR),
	FULL(capget, 2, A_PTR, A_PTR), FULL(capset, 2, A_PTR, A_PTR),
	PART(prctl,
	     "no SET_MM, SPECULATION_CTRL, IO_FLUSHER, SYSCALL_USER_DISPATCH, SCHED_CORE; "
	     "TSC_SIGSEGV EINVAL; VMA names not kept; SET/GET_SECCOMP as seccomp",
	     5, A_PRCTL, A_HEX, A_HEX, A_HEX, A_HEX),
	/* scheduling and resource usage */
	PART(getpriority, "nice values are recorded, the host does not apply them", 2, A_INT,
	     A_INT),
	PART(setpriority, "as getpriority", 3, A_INT, A_INT, A_INT),
	PART(sched_setscheduler, "FIFO and RR recorded without real-time behaviour; no DEADLINE", 3,
	     A_INT, A_SCHED_POLICY, A_PTR),
	PART(sched_setparam, "as sched_setscheduler", 2, A_INT, A_PTR),
	FULL(sched_getscheduler, 1, A_INT), FULL(sched_getparam, 2, A_INT, A_PTR),
	FULL(sched_get_priority_max, 1, A_SCHED_POLICY),
	FULL(sched_get_priority_min, 1, A_SCHED_POLICY),
	PART(sched_rr_get_interval, "Linux 6.1's values for a lone task (CFS slice, RR 100 ms)", 2,
	     A_INT, A_PTR),
	PART(sched_setaffinity,
	     "masks of the sandbox's CPUs are recorded, not applied to host threads", 3, A_INT,
	     A_UINT, A_PTR),
	FULL(sched_getaffinity, 3, A_INT, A_UINT, A_PTR),
	PART(membarrier,
	     "no RSEQ commands (EINVAL, as rseq is ENOSYS); GLOBAL* interrupt all tasks", 3, A_INT,
	     A_HEX, A_INT),
	PART(getrusage,
	     "user time is the guest's CPU time, system time the sentry's; maxrss is peak "
	     "committed memory; fault, I/O and switch counts are 0",
	     2, A_INT, A_PTR),
	PART(times, "user time as getrusage's", 1, A_PTR),
	PART(sched_setattr,
	     "as sched_setscheduler and setpriority; no SCHED_DEADLINE (EINVAL), no utilization "
	     "clamps (EOPNOTSUPP, as a kernel without them)",
	     3, A_INT, A_PTR, A_HEX),
	FULL(sched_getattr, 4, A_INT, A_PTR, A_UINT, A_HEX),
	FULL(get_robust_list, 3, A_INT, A_PTR, A_PTR),
	PART(readahead, "a hint: the sandbox's file pages are read when used", 3, A_FD, A_INT,
	     A_UINT),
	PART(sync_file_range, "SYNC_FILE_RANGE_WRITE writes the whole file back, as fdatasync", 4,
	     A_FD, A_INT, A_INT, A_HEX),
	PART(process_vm_readv, "ptrace's attach rule by real ids (no LSM)", 6, A_INT, A_PTR, A_UINT,
	     A_PTR, A_UINT, A_HEX),
	PART(process_vm_writev, "as process_vm_readv", 6, A_INT, A_PTR, A_UINT, A_PTR, A_UINT,
	     A_HEX),
	FULL(pidfd_open, 2, A_INT, A_HEX), FULL(pidfd_send_signal, 4, A_FD, A_SIGNAL, A_PTR, A_HEX),
	PART(pidfd_getfd, "ptrace's attach rule by real ids (no LSM)", 3, A_FD, A_FD, A_HEX),
	PART(personality,
	     "kept and inherited; ADDR_NO_RANDOMIZE turns exec's randomization off; PER_LINUX32 "
	     "leaves uname's machine as it is",
	     1, A_HEX),
	/* System V IPC (sentry/ipc/): one IPC namespace per sandbox */
	PART(shmget, "no SHM_HUGETLB (ENOMEM)", 3, A_HEX, A_UINT, A_OCT),
	[SYS_shmat] = {.fn = sys_shmat,
		       .status = SYS_FULL,
		       .nargs = 3,
		       .ret = A_HEX,
		       .fmt = {A_INT, A_HEX, A_HEX}},
	FULL(shmdt, 1, A_HEX),
	PART(shmctl, "SHM_LOCK and SHM_UNLOCK are recorded (the sandbox's memory is never swapped)",
	     3, A_INT, A_INT, A_PTR),
	FULL(semget, 3, A_HEX, A_INT, A_OCT), FULL(semop, 3, A_INT, A_PTR, A_UINT),
	FULL(semtimedop, 4, A_INT, A_PTR, A_UINT, A_TIMESPEC),
	FULL(semctl, 4, A_INT, A_INT, A_INT, A_HEX), FULL(msgget, 2, A_HEX, A_OCT),
	FULL(msgsnd, 4, A_INT, A_PTR, A_UINT, A_HEX),
	PART(msgrcv, "no MSG_COPY (ENOSYS, as a kernel without checkpoint/restore)", 5, A_INT,
	     A_PTR, A_UINT, A_INT, A_HEX),
	FULL(msgctl, 3, A_INT, A_INT, A_PTR),
	/* POSIX message queues (sentry/ipc/mqueue.c) */
	PART(mq_open,
	     "mqueue fds are anonymous files (anon_inode:[mqueue]), not files of a mountable "
	     "mqueue fs; /proc/sys/fs/mqueue is read-only",
	     4, A_STR, A_HEX, A_OCT, A_PTR),
	FULL(mq_unlink, 1, A_STR), FULL(mq_timedsend, 5, A_FD, A_PTR, A_UINT, A_UINT, A_TIMESPEC),
	FULL(mq_timedreceive, 5, A_FD, A_PTR, A_UINT, A_PTR, A_TIMESPEC),
	PART(mq_notify,
	     "SIGEV_SIGNAL and SIGEV_NONE; SIGEV_THREAD (a netlink cookie) EINVAL; a close does "
	     "not drop the registration",
	     2, A_FD, A_PTR),
	FULL(mq_getsetattr, 3, A_FD, A_PTR, A_PTR),
	PART(sysinfo,
	     "the sandbox's figures, as /proc/meminfo shows them: totalram is its memory limit, "
	     "freeram what is left of it; no swap; loads are 0 (no load average is kept)",
	     1, A_PTR),
	/* deliberately absent */
	NOSYS(rseq, "ENOSYS: guest threads run on host CPUs the sentry does not see, so cpu_id and "
		    "aborts on preemption would be false; glibc and tcmalloc fall back"),
	/* obsolete, or never implemented by Linux on x86-64 */
	NOSYS(uselib, R_OBSOLETE), FULL(ustat, 2, A_HEX, A_PTR),
	FULL(sysfs, 3, A_INT, A_HEX, A_HEX), NOSYS(_sysctl, R_OBSOLETE),
	NOSYS(create_module, R_OBSOLETE), NOSYS(get_kernel_syms, R_OBSOLETE),
	NOSYS(query_module, R_OBSOLETE), NOSYS(nfsservctl, R_OBSOLETE), NOSYS(getpmsg, R_OBSOLETE),
	NOSYS(putpmsg, R_OBSOLETE), NOSYS(afs_syscall, R_OBSOLETE), NOSYS(tuxcall, R_OBSOLETE),
	NOSYS(security, R_OBSOLETE), NOSYS(vserver, R_OBSOLETE), NOSYS(epoll_ctl_old, R_OBSOLETE),
	NOSYS(epoll_wait_old, R_OBSOLETE), NOSYS(lookup_dcookie, "obsolete (oprofile's): ENOSYS"),
	PART(remap_file_pages,
	     "as Linux's emulation: a new shared mapping of the file at pgoff; shared anonymous "
	     "memory (no file here) is EINVAL",
	     5, A_HEX, A_UINT, A_PROT, A_UINT, A_HEX),
	NOSYS(set_thread_area, "32-bit TLS: ENOSYS (64-bit guests use arch_prctl)"),
	NOSYS(get_thread_area, "32-bit TLS: ENOSYS (64-bit guests use arch_prctl)"),
	NOSYS(modify_ldt, "no LDT in the sandbox: ENOSYS, as CONFIG_MODIFY_LDT_SYSCALL=n"),
	/* the host's own business */
	REFUSED(reboot, EPERM, R_HOST), REFUSED(swapon, EPERM, R_HOST),
	REFUSED(swapoff, EPERM, R_HOST), REFUSED(init_module, EPERM, R_HOST),
	REFUSED(finit_module, EPERM, R_HOST), REFUSED(delete_module, EPERM, R_HOST),
	REFUSED(kexec_load, EPERM, R_HOST), REFUSED(kexec_file_load, EPERM, R_HOST),
	REFUSED(iopl, EPERM, R_HOST), REFUSED(ioperm, EPERM, R_HOST), REFUSED(acct, EPERM, R_HOST),
	REFUSED(settimeofday, EPERM, "the host's clock: EPERM (as without CAP_SYS_TIME)"),
	REFUSED(clock_settime, EPERM, "the host's clock: EPERM (as without CAP_SYS_TIME)"),
	PART(clock_adjtime,
	     "CLOCK_REALTIME as adjtimex; other clocks EOPNOTSUPP or EINVAL, as Linux", 2, A_CLOCK,
	     A_PTR),
	PART(adjtimex,
	     "reads only: the host's clock discipline as seen at boot, the time now; any change "
	     "EPERM (as without CAP_SYS_TIME)",
	     1, A_PTR),
	REFUSED(quotactl, EPERM, R_HOST), REFUSED(quotactl_fd, EPERM, R_HOST),
	REFUSED(syslog, EPERM, "the host's kernel log: EPERM (dmesg_restrict)"),
	REFUSED(bpf, EPERM, "the host's eBPF: EPERM (unprivileged_bpf_disabled)"),
	REFUSED(perf_event_open, EACCES, "the host's counters: EACCES (perf_event_paranoid)"),
	REFUSED(open_by_handle_at, EPERM, "EPERM (as without CAP_DAC_READ_SEARCH)"),
	NOSYS(name_to_handle_at, "no file handles: ENOSYS"),
	NOSYS(fanotify_init,
	      "a host facility: ENOSYS (--isolation=auto moves such a workload to a VM)"),
	NOSYS(fanotify_mark, "a host facility: ENOSYS"), NOSYS(userfaultfd, "not offered: ENOSYS"),
	NOSYS(memfd_secret, "ENOSYS, as a kernel without secretmem"),
	/* kernel features the sandbox's guests are told are absent */
	PART(mbind, "one node (0): Linux's checks, but no policy is kept per mapping", 6, A_HEX,
	     A_UINT, A_INT, A_PTR, A_UINT, A_HEX),
	FULL(set_mempolicy, 3, A_INT, A_PTR, A_UINT),
	PART(get_mempolicy, "one node (0); MPOL_F_ADDR gives MPOL_DEFAULT (mbind keeps no policy)",
	     5, A_PTR, A_PTR, A_UINT, A_HEX, A_HEX),
	PART(migrate_pages, "one node: checks, then 0 (every page is on node 0 already)", 4, A_INT,
	     A_UINT, A_PTR, A_PTR),
	PART(move_pages,
	     "one node: a page's status is 0 (in memory), -ENOENT (untouched) or -EFAULT; any "
	     "other node ENODEV; nothing moves",
	     6, A_INT, A_UINT, A_PTR, A_PTR, A_PTR, A_HEX),
	PART(set_mempolicy_home_node,
	     "checks, then ENOENT: no mapping has a policy of its own (mbind)", 4, A_HEX, A_UINT,
	     A_UINT, A_HEX),
	PART(io_setup,
	     "the ring is anonymous memory (not /[aio]); reads, writes and syncs are done at "
	     "submit; aio-max-nr is read-only",
	     2, A_UINT, A_PTR),
	FULL(io_destroy, 1, A_HEX), FULL(io_getevents, 5, A_HEX, A_INT, A_INT, A_PTR, A_TIMESPEC),
	PART(io_submit,
	     "PREAD(V), PWRITE(V) and (FD)SYNC complete at submit (a pipe read blocks it, as "
	     "Linux); POLL waits for readiness",
	     3, A_HEX, A_INT, A_PTR),
	PART(io_cancel,
	     "only a pending IOCB_CMD_POLL can be cancelled (others completed at submit)", 3, A_HEX,
	     A_PTR, A_PTR),
	FULL(io_pgetevents, 6, A_HEX, A_INT, A_INT, A_PTR, A_TIMESPEC, A_PTR),
	NOSYS(io_uring_setup, "ENOSYS, as a kernel without io_uring: libuv and others fall back"),
	NOSYS(io_uring_enter, "ENOSYS, as a kernel without io_uring"),
	NOSYS(io_uring_register, "ENOSYS, as a kernel without io_uring"),
	PART(pkey_mprotect,
	     "as Linux on a CPU without OSPKE: pkey -1 is mprotect, any other key EINVAL", 4, A_HEX,
	     A_UINT, A_PROT, A_INT),
	PART(pkey_alloc, "as Linux on a CPU without OSPKE (the CPUID presented): ENOSPC, no keys",
	     2, A_HEX, A_HEX),
	PART(pkey_free, "as Linux on a CPU without OSPKE: EINVAL, no key is ever allocated", 1,
	     A_INT),
	PART(landlock_create_ruleset,
	     "ABI 2 (Linux 6.1): filesystem rights up to REFER; no TRUNCATE, no network, no ERRATA "
	     "flag",
	     3, A_PTR, A_UINT, A_HEX),
	PART(landlock_add_rule,
	     "PATH_BENEATH, enforced by the sentry's VFS; at most 65536 rules per ruleset (E2BIG)",
	     4, A_FD, A_INT, A_PTR, A_HEX),
	FULL(landlock_restrict_self, 2, A_FD, A_HEX),
	PART(add_key,
	     "types user and keyring only (else ENODEV); one key cap per sandbox, not per-user "
	     "quotas",
	     5, A_STR, A_STR, A_PTR, A_UINT, A_INT),
	PART(request_key, "no upcall: searches the caller's keyrings, ENOKEY when absent", 4, A_STR,
	     A_STR, A_STR, A_INT),
	PART(keyctl,
	     "keyring ids, join, describe, read, update, revoke, link, unlink, search, clear, "
	     "invalidate, setperm; others EOPNOTSUPP (no chown, timeouts, instantiate, DH)",
	     5, A_INT, A_HEX, A_HEX, A_HEX, A_HEX),
	/* not yet */
	PART(ptrace,
	     "no hardware breakpoints (DR7 enable: EIO), no PEEKSIGINFO or seccomp requests, no "
	     "32-bit regsets",
	     4, A_INT, A_INT, A_HEX, A_HEX),
	PART(kcmp,
	     "KCMP_IO: a context once ioprio_set or CLONE_IO made one (Linux: also at first I/O); "
	     "SYSVSEM: an undo list once SEM_UNDO was used",
	     5, A_INT, A_INT, A_INT, A_HEX, A_HEX),
	PART(ioprio_set, "recorded per task and reported back; the sandbox schedules no I/O by it",
	     3, A_INT, A_INT, A_HEX),
	FULL(ioprio_get, 2, A_INT, A_INT),
	PART(process_madvise,
	     "COLD, PAGEOUT, WILLNEED are hints the sandbox takes (nothing is paged out); COLLAPSE "
	     "EINVAL, as without THP",
	     5, A_FD, A_PTR, A_UINT, A_MADVICE, A_HEX),
	PART(process_mrelease,
	     "EINVAL unless the process is exiting; then 0: its memory is freed as its threads "
	     "go",
	     2, A_FD, A_HEX),
	PART(futex_waitv,
	     "FUTEX2_SIZE_U32 only, as Linux; FUTEX2_NUMA is EINVAL (as 6.7); a REALTIME deadline "
	     "does not follow later clock changes",
	     5, A_PTR, A_UINT, A_HEX, A_TIMESPEC, A_CLOCK),
	PART(unshare,
	     "mnt, uts: own copies; user: id maps applied to ids; pid: numbered from 1; ipc, net, "
	     "cgroup: own ids, the sandbox's objects; no CLONE_NEWTIME",
	     1, A_HEX),
	PART(setns,
	     "an open /proc/PID/ns file, each type with Linux's checks; a pidfd is EINVAL; ipc, "
	     "net, "
	     "cgroup: identity only",
	     2, A_INT, A_HEX),
	PART(mount,
	     "tmpfs, proc, sysfs, devpts, overlay (one lowerdir, upperdir on a tmpfs), bind, "
	     "remount, move, propagation (shared, slave, private, unbindable); else ENODEV",
	     5, A_STR, A_STR, A_STR, A_HEX, A_PTR),
	PART(umount2, "MNT_EXPIRE is EAGAIN; MNT_FORCE as a plain umount", 2, A_STR, A_HEX),
	FULL(pivot_root, 2, A_STR, A_STR),
	PART(open_tree, "a clone is a detached private tree until move_mount; as mount(2)'s binds",
	     3, A_DIRFD, A_STR, A_HEX),
	FULL(move_mount, 5, A_DIRFD, A_STR, A_DIRFD, A_STR, A_HEX),
	PART(fsopen, "mount(2)'s filesystems (tmpfs, proc, sysfs, devpts), else ENODEV", 2, A_STR,
	     A_HEX),
	PART(fsconfig,
	     "flags and strings; a filesystem's parameters are checked at FSCONFIG_CMD_CREATE; no "
	     "binary, path or fd values (EINVAL); no messages (read: ENODATA)",
	     5, A_FD, A_UINT, A_STR, A_PTR, A_INT),
	FULL(fsmount, 3, A_FD, A_HEX, A_HEX),
	PART(fspick, "reconfiguring changes ro/rw only", 3, A_DIRFD, A_STR, A_HEX),
	PART(mount_setattr, "no idmapped mounts (MOUNT_ATTR_IDMAP: EINVAL)", 5, A_DIRFD, A_STR,
	     A_HEX, A_PTR, A_UINT),
	/* newer than the kernel the sandbox presents */
	NOSYS_NR(451, R_NEWER), /* cachestat */
	PART(fchmodat2,
	     "Linux 6.6's, offered beyond 6.1 (glibc 2.39 uses it); a symlink's mode: EOPNOTSUPP",
	     4, A_DIRFD, A_STR, A_OCT, A_HEX),
	NOSYS_NR(453, R_NEWER), /* map_shadow_stack */
	PART(futex_wake,
	     "Linux 6.7's, offered beyond 6.1; FUTEX2_SIZE_U32 only, FUTEX2_NUMA EINVAL", 4, A_PTR,
	     A_HEX, A_INT, A_HEX),
	PART(futex_wait,
	     "as futex_wake; an absolute deadline (REALTIME: not following clock changes)", 6,
	     A_PTR, A_UINT, A_HEX, A_HEX, A_TIMESPEC, A_CLOCK),
	PART(futex_requeue, "as futex_wake", 4, A_PTR, A_HEX, A_INT, A_INT),
	NOSYS_NR(457, R_NEWER), /* statmount */
	NOSYS_NR(458, R_NEWER), /* listmount */
	PART(lsm_get_self_attr, "no module provides attributes: EOPNOTSUPP after Linux's checks", 4,
	     A_UINT, A_PTR, A_PTR, A_HEX),
	PART(lsm_set_self_attr, "no module takes attributes: EOPNOTSUPP after Linux's checks", 4,
	     A_UINT, A_PTR, A_UINT, A_HEX),
	PART(lsm_list_modules, "Linux 6.8's: the one module is capability (LSM_ID_CAPABILITY)", 3,
	     A_PTR, A_PTR, A_HEX),
	NOSYS_NR(462, R_NEWER), /* mseal */
	PART(setxattrat, "Linux 6.13's; as setxattr", 6, A_DIRFD, A_STR, A_HEX, A_STR, A_PTR,
	     A_UINT),
	PART(getxattrat, "Linux 6.13's; as getxattr", 6, A_DIRFD, A_STR, A_HEX, A_STR, A_PTR,
	     A_UINT),
	FULL(listxattrat, 5, A_DIRFD, A_STR, A_HEX, A_PTR, A_UINT),
	PART(removexattrat, "Linux 6.13's; as getxattr", 4, A_DIRFD, A_STR, A_HEX, A_STR),
	NOSYS_NR(467, R_NEWER), /* open_tree_attr */

};

static const char *const names[SYSCALL_TABLE_SIZE] = {
#define X(nr, name) [nr] = #name,
	SYSCALL_NAMES(X)
#undef X
};

const struct syscall_desc *syscall_lookup(uint64_t nr)
{
	return nr < SYSCALL_TABLE_SIZE ? &table[nr] : NULL;
}

const char *syscall_name(uint64_t nr)
{
	return nr < SYSCALL_TABLE_SIZE ? names[nr] : NULL;
}

const char *syscall_status_name(enum sys_status s)
{
	switch (s) {
	case SYS_FULL:
		return "full";
	case SYS_PARTIAL:
		return "partial";
	default:
		return "unsupported";
	}
}

void syscall_dispatch(struct task *t)
{
	struct user_regs_struct *r = &t->cpu.regs;
	struct syscall_args a = {
		.nr = r->orig_rax,
		.a = {r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9},
	};
	const struct syscall_desc *d = syscall_lookup(a.nr);
	bool trace = t->k->cfg.strace;
	long ret;

	if (trace)
		strace_enter(t, d, &a);
	if (seccomp_syscall(t, SECCOMP_ARCH_X86_64, &a, &ret)) {
		/* The guest's seccomp filters decided: the handler does not run. */
	} else if (d && d->fn) {
		ret = d->fn(t, &a);
	} else {
		const char *name = syscall_name(a.nr);
		if (kernel_note_unsupported(t->k, a.nr < 1023 ? (unsigned)a.nr : 1022))
			log_info("unsupported syscall %llu (%s) by %s", (unsigned long long)a.nr,
				 name ? name : "unknown", t->comm);
		ret = d && d->err ? -d->err : -ENOSYS;
	}
	if (trace)
		strace_exit(t, d, &a, ret);
	r->rax = (uint64_t)ret;
	task_regs_dirty(t, CPU_DIRTY_RAX);
}
