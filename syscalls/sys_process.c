/* Process identity, limits and the machine: ids, rlimits, uname, TLS, exit. */
#include "config.h"
#include "syscalls/handlers.h"
#include "sentry/fs/procfs.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/fs/file.h"
#include "sentry/fs/pidfd.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/uts.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <sched.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/utsname.h>

/* Linux's fs.nr_open default: the ceiling for RLIMIT_NOFILE. */
#define NR_OPEN	       1048576
#define ARCH_GET_CPUID 0x1011
#define ARCH_SET_CPUID 0x1012

SYSCALL(exit)
{
	task_exit_thread(t, (int)(a->a[0] & 0xff) << 8);
	return 0;
}

SYSCALL(exit_group)
{
	task_exit_group(t, (int)(a->a[0] & 0xff) << 8);
	return 0;
}

SYSCALL(getpid)
{
	return tg_pid_nr(t->tg, t->pidns);
}

SYSCALL(gettid)
{
	return task_tid_nr(t, t->pidns);
}

SYSCALL(getppid)
{
	struct thread_group *p;
	long ret;

	pthread_mutex_lock(&t->k->lock);
	p = t->tg->parent;
	/* 0 for a parent outside the caller's pid namespace (its init's). */
	ret = p ? tg_pid_nr(p, t->pidns) : 0;
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

SYSCALL(clone)
{
	/* x86-64 argument order: flags, newsp, parent_tid, child_tid, tls.
	 * The pidfd goes where parent_tid points (so not with both), and only
	 * the low 32 bits are flags. */
	struct clone_req r = {.flags = (uint32_t)a->a[0],
			      .stack = a->a[1],
			      .parent_tid = a->a[2],
			      .child_tid = a->a[3],
			      .tls = a->a[4],
			      .pidfd = a->a[2]};

	if ((r.flags & CLONE_PIDFD) && (r.flags & CLONE_PARENT_SETTID))
		return -EINVAL;
	return task_clone(t, &r);
}

/* clone3's struct clone_args: its first version (64 bytes), set_tid (80)
 * and cgroup (88). */
struct clone_args_guest {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};
#define CLONE_ARGS_SIZE_VER0 64u
#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ull
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ull
#endif
#define CLONE_DETACHED_FLAG 0x00400000ull

/* Linux's copy_clone_args_from_user and clone3_args_valid. */
static long clone3_args(struct task *t, uint64_t uargs, uint64_t size, struct clone_req *r)
{
	struct clone_args_guest ca;
	long ret;

	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	ret = mm_copy_struct_in(t->mm, &ca, sizeof(ca), uargs, size);
	if (ret)
		return ret;
	if (ca.set_tid_size > 32 || (!ca.set_tid && ca.set_tid_size) ||
	    (ca.set_tid && !ca.set_tid_size))
		return -EINVAL;
	if ((ca.exit_signal & ~(uint64_t)CSIGNAL) || ca.exit_signal > GUEST_NSIG)
		return -EINVAL;
	if (ca.flags & ~(0xffffffffull | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return -EINVAL;
	if (ca.flags & (CLONE_DETACHED_FLAG | CSIGNAL))
		return -EINVAL;
	if ((ca.flags & (CLONE_THREAD | CLONE_PARENT)) && ca.exit_signal)
		return -EINVAL;
	if ((ca.stack == 0) != (ca.stack_size == 0))
		return -EINVAL;
	if (ca.set_tid_size)
		return -EPERM; /* the sandbox chooses every pid (the table's note) */
	if (ca.flags & CLONE_INTO_CGROUP)
		return -EOPNOTSUPP; /* no cgroups inside the sandbox */
	*r = (struct clone_req){.flags = ca.flags | ca.exit_signal,
				.stack = ca.stack ? ca.stack + ca.stack_size : 0,
				.parent_tid = ca.parent_tid,
				.child_tid = ca.child_tid,
				.tls = ca.tls,
				.pidfd = ca.pidfd};
	return 0;
}

SYSCALL(clone3)
{
	struct clone_req r;
	long ret = clone3_args(t, a->a[0], a->a[1], &r);

	return ret ? ret : task_clone(t, &r);
}

SYSCALL(fork)
{
	struct clone_req r = {.flags = SIGCHLD};

	return task_clone(t, &r);
}

SYSCALL(vfork)
{
	struct clone_req r = {.flags = CLONE_VFORK | CLONE_VM | SIGCHLD};

	return task_clone(t, &r);
}

/* wait4's pid argument as a waitid selection. */
static void wait4_which(int pid, int *which, int *id)
{
	if (pid == -1) {
		*which = WAIT_ANY;
		*id = 0;
	} else if (pid < -1) {
		*which = WAIT_PGID;
		*id = -pid;
	} else if (pid == 0) {
		*which = WAIT_PGID;
		*id = 0; /* the caller's group */
	} else {
		*which = WAIT_PID;
		*id = pid;
	}
}

SYSCALL(wait4)
{
	int options = (int)a->a[2], which, id;
	struct wait_result res;
	long ret;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	/* INT_MIN cannot be negated into a process group. */
	if ((int)a->a[0] == INT_MIN)
		return -ESRCH;
	wait4_which((int)a->a[0], &which, &id);
	if (id > 0)
		id = pidns_global(t->k, t->pidns, id); /* a number of the caller's namespace */
	ret = task_wait(t, which, id, options | WEXITED, &res);
	if (ret < 0 || !res.pid)
		return ret;
	if (a->a[1] && mm_copy_out(t->mm, a->a[1], &res.status, sizeof(res.status)) < 0)
		return -EFAULT;
	if (a->a[3] && mm_copy_out(t->mm, a->a[3], &res.ru, sizeof(res.ru)) < 0)
		return -EFAULT;
	return res.pid;
}

SYSCALL(waitid)
{
	int idtype = (int)a->a[0], id = (int)a->a[1], options = (int)a->a[3], which;
	bool eagain = false;
	struct wait_result res;
	siginfo_t info;
	long ret;

	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD |
			__WCLONE | __WALL))
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (idtype) {
	case P_ALL:
		which = WAIT_ANY;
		break;
	case P_PID:
		if (id <= 0)
			return -EINVAL;
		which = WAIT_PID;
		break;
	case P_PGID:
		if (id < 0)
			return -EINVAL;
		which = WAIT_PGID;
		break;
	case P_PIDFD: {
		struct thread_group *tg;
		struct file *f = pidfd_fget(t->files, id, &tg);
		if (!f)
			return -EBADF;
		/* A nonblocking pidfd waits as WNOHANG, and says EAGAIN for nothing. */
		if ((file_getfl(f) & O_NONBLOCK) && !(options & WNOHANG)) {
			options |= WNOHANG;
			eagain = true;
		}
		which = WAIT_PID;
		id = tg->tgid;
		file_put(f);
		break;
	}
	default:
		return -EINVAL;
	}
	if (idtype != P_PIDFD && id > 0)
		id = pidns_global(t->k, t->pidns, id);
	ret = task_wait(t, which, id, options, &res);
	if (ret >= 0 && eagain && !res.pid)
		return -EAGAIN;
	if (ret < 0)
		return ret;
	memset(&info, 0, sizeof(info));
	if (res.pid) {
		info.si_signo = SIGCHLD;
		info.si_code = res.code;
		info.si_pid = res.pid;
		info.si_uid = res.uid;
		info.si_status = res.cld_status;
	}
	if (a->a[2] && mm_copy_out(t->mm, a->a[2], &info, sizeof(info)) < 0)
		return -EFAULT;
	if (a->a[4] && mm_copy_out(t->mm, a->a[4], &res.ru, sizeof(res.ru)) < 0)
		return -EFAULT;
	return 0;
}

/* Process and group numbers of the caller's pid namespace in, and out
 * (a group whose leader is outside it reads as 0). */
static int pid_in(struct task *t, int nr)
{
	return nr > 0 ? pidns_global(t->k, t->pidns, nr) : nr;
}

static long pid_out(struct task *t, long global)
{
	return global > 0 ? pidns_view(t->k, t->pidns, (int)global) : global;
}

SYSCALL(setpgid)
{
	return task_setpgid(t, pid_in(t, (int)a->a[0]), pid_in(t, (int)a->a[1]));
}

SYSCALL(getpgid)
{
	return pid_out(t, task_getpgid(t, pid_in(t, (int)a->a[0])));
}

SYSCALL(getpgrp)
{
	return pid_out(t, task_getpgid(t, 0));
}

SYSCALL(setsid)
{
	return pid_out(t, task_setsid(t));
}

SYSCALL(getsid)
{
	return pid_out(t, task_getsid(t, pid_in(t, (int)a->a[0])));
}

SYSCALL(getuid)
{
	return uid_out(t->creds.user_ns, t->creds.uid);
}

SYSCALL(geteuid)
{
	return uid_out(t->creds.user_ns, t->creds.euid);
}

SYSCALL(getgid)
{
	return gid_out(t->creds.user_ns, t->creds.gid);
}

SYSCALL(getegid)
{
	return gid_out(t->creds.user_ns, t->creds.egid);
}

SYSCALL(set_tid_address)
{
	t->clear_child_tid = a->a[0];
	return task_tid_nr(t, t->pidns);
}

SYSCALL(set_robust_list)
{
	/* sizeof(struct robust_list_head) on x86-64. */
	if (a->a[1] != 24)
		return -EINVAL;
	t->robust_list = a->a[0];
	t->robust_list_len = a->a[1];
	return 0;
}

/* get_robust_list: the list of pid (0: the caller), for a caller that may
 * read it as ptrace would. */
SYSCALL(get_robust_list)
{
	int pid = (int)a->a[0];
	uint64_t head = 0, len = 0;
	struct task *p;
	long ret = 0;

	pthread_mutex_lock(&t->k->lock);
	p = pid ? kernel_find_task_locked(t->k, pidns_global_locked(t->k, t->pidns, pid)) : t;
	if (!p)
		ret = -ESRCH;
	else if (p != t && (!creds_may_attach(&t->creds, &p->creds, p->dumpable) ||
			    !landlock_may_ptrace(t, p)))
		ret = -EPERM;
	else {
		head = p->robust_list;
		len = p->robust_list_len;
	}
	pthread_mutex_unlock(&t->k->lock);
	if (ret)
		return ret;
	if (mm_copy_out(t->mm, a->a[2], &len, sizeof(len)) < 0 ||
	    mm_copy_out(t->mm, a->a[1], &head, sizeof(head)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(arch_prctl)
{
	uint64_t code = a->a[0], addr = a->a[1];
	struct user_regs_struct *r;

	switch (code) {
	case ARCH_SET_FS:
		if (addr >= HOST_TASK_SIZE)
			return -EPERM;
		t->cpu.regs.fs_base = addr;
		task_regs_dirty(t, CPU_DIRTY_FS);
		return 0;
	case ARCH_GET_FS:
		r = task_regs(t);
		return mm_copy_out(t->mm, addr, &r->fs_base, sizeof(r->fs_base));
	case ARCH_SET_GS:
		if (addr >= HOST_TASK_SIZE)
			return -EPERM;
		r = task_regs(t);
		r->gs_base = addr;
		task_regs_dirty(t, CPU_DIRTY_ALL);
		return 0;
	case ARCH_GET_GS:
		r = task_regs(t);
		return mm_copy_out(t->mm, addr, &r->gs_base, sizeof(r->gs_base));
	case ARCH_GET_CPUID:
		return !t->cpuid_fault;
	case ARCH_SET_CPUID:
		/* Only where the sentry sees every CPUID can it make them fault. */
		if (!t->k->plat->cpuid_faulting)
			return -ENODEV;
		t->cpuid_fault = addr == 0;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Read and (when nl is given) replace one resource limit of tg; the caller
 * is t. Under k->lock. */
static long do_prlimit_locked(struct task *t, struct thread_group *tg, unsigned res,
			      const struct rlimit *nl, struct rlimit *old)
{
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	if (nl) {
		if (nl->rlim_cur > nl->rlim_max)
			return -EINVAL;
		if (res == RLIMIT_NOFILE && nl->rlim_max > NR_OPEN)
			return -EPERM;
		if (nl->rlim_max > tg->rlim[res].rlim_max &&
		    !creds_capable(&t->creds, KCAP_SYS_RESOURCE))
			return -EPERM;
	}
	if (old)
		*old = tg->rlim[res];
	if (nl)
		tg->rlim[res] = *nl;
	return 0;
}

static long do_prlimit(struct task *t, unsigned res, const struct rlimit *nl, struct rlimit *old)
{
	long ret;

	pthread_mutex_lock(&t->k->lock);
	ret = do_prlimit_locked(t, t->tg, res, nl, old);
	pthread_mutex_unlock(&t->k->lock);
	return ret;
}

/* May t read or change p's limits (check_prlimit_permission): its own, or
 * a process whose real, effective and saved ids are all t's real ones, or
 * with CAP_SYS_RESOURCE. */
static bool may_prlimit(struct task *t, struct task *p)
{
	const struct creds *c = &t->creds, *pc = &p->creds;

	if (p == t)
		return true;
	if (c->uid == pc->euid && c->uid == pc->suid && c->uid == pc->uid && c->gid == pc->egid &&
	    c->gid == pc->sgid && c->gid == pc->gid)
		return true;
	return creds_capable(c, KCAP_SYS_RESOURCE);
}

SYSCALL(prlimit64)
{
	int pid = (int)a->a[0];
	struct rlimit nl, old;
	struct task *p;
	long ret;

	if (a->a[2] && mm_copy_in(t->mm, &nl, a->a[2], sizeof(nl)) < 0)
		return -EFAULT;
	pthread_mutex_lock(&t->k->lock);
	p = pid == 0 ? t : kernel_find_task_locked(t->k, pidns_global_locked(t->k, t->pidns, pid));
	if (!p)
		ret = -ESRCH;
	else if (!may_prlimit(t, p))
		ret = -EPERM;
	else
		ret = do_prlimit_locked(t, p->tg, (unsigned)a->a[1], a->a[2] ? &nl : NULL, &old);
	pthread_mutex_unlock(&t->k->lock);
	if (ret == 0 && a->a[3] && mm_copy_out(t->mm, a->a[3], &old, sizeof(old)) < 0)
		return -EFAULT;
	return ret;
}

SYSCALL(getrlimit)
{
	struct rlimit old;
	long ret = do_prlimit(t, (unsigned)a->a[0], NULL, &old);

	if (ret == 0 && mm_copy_out(t->mm, a->a[1], &old, sizeof(old)) < 0)
		return -EFAULT;
	return ret;
}

SYSCALL(setrlimit)
{
	struct rlimit nl;

	if (mm_copy_in(t->mm, &nl, a->a[1], sizeof(nl)) < 0)
		return -EFAULT;
	return do_prlimit(t, (unsigned)a->a[0], &nl, NULL);
}

SYSCALL(uname)
{
	struct uts_ns *uts = task_ns(t)->uts; /* (not under the lock: it may make the first) */
	struct utsname u;

	memset(&u, 0, sizeof(u));
	strcpy(u.sysname, UTS_SYSNAME);
	/* The names of the caller's UTS namespace. */
	pthread_mutex_lock(&t->k->lock);
	strcpy(u.nodename, uts->hostname);
	strcpy(u.domainname, uts->domainname);
	pthread_mutex_unlock(&t->k->lock);
	strcpy(u.release, UTS_RELEASE);
	strcpy(u.version, UTS_VERSION);
	strcpy(u.machine, UTS_MACHINE);
	return mm_copy_out(t->mm, a->a[0], &u, sizeof(u));
}

/* sethostname/setdomainname in the caller's UTS namespace: CAP_SYS_ADMIN
 * over it, at most 64 bytes. */
static long set_uts_name(struct task *t, bool domain, uint64_t uname, uint64_t len)
{
	struct uts_ns *uts = task_ns(t)->uts;
	char buf[65], *dst = domain ? uts->domainname : uts->hostname;

	if (!creds_ns_capable(&t->creds, uts->owner, KCAP_SYS_ADMIN))
		return -EPERM;
	if (len > 64)
		return -EINVAL;
	if (mm_copy_in(t->mm, buf, uname, len) < 0)
		return -EFAULT;
	buf[len] = '\0';
	pthread_mutex_lock(&t->k->lock);
	memcpy(dst, buf, len + 1);
	pthread_mutex_unlock(&t->k->lock);
	procfs_uts_changed(domain);
	return 0;
}

SYSCALL(sethostname)
{
	return set_uts_name(t, false, a->a[0], a->a[1]);
}

SYSCALL(setdomainname)
{
	return set_uts_name(t, true, a->a[0], a->a[1]);
}

SYSCALL(sched_yield)
{
	sched_yield();
	return 0;
}

SYSCALL(getrandom)
{
	uint64_t buf = a->a[0];
	size_t len = a->a[1], done = 0;
	unsigned flags = (unsigned)a->a[2];
	char tmp[4096];

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
		return -EINVAL;
	len = MIN(len, (size_t)0x1ffffff);
	while (done < len) {
		size_t chunk = MIN(len - done, sizeof(tmp));
		ssize_t n = getrandom(tmp, chunk, GRND_NONBLOCK);
		size_t c;
		if (n <= 0)
			return done ? (long)done : -EAGAIN;
		c = mm_copy_out_partial(t->mm, buf + done, tmp, (size_t)n);
		done += c;
		if (c < (size_t)n)
			return done ? (long)done : -EFAULT;
	}
	return (long)done;
}
