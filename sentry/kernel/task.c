/* The task run loop, blocking, and the end of a task. */
#include "config.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "syscalls/syscall.h"
#include "sentry/kernel/wait.h"
#include "sentry/vfs/vfs.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static __thread struct task *current;

struct task *current_task(void)
{
	return current;
}

void task_interrupt(struct task *t)
{
	task_wake(t);
	t->ctx->ops->interrupt(t->ctx);
}

/* Should the task stop what it is doing (the sandbox or its group is ending)? */
static bool task_should_stop(struct task *t)
{
	bool stop;

	pthread_mutex_lock(&t->k->lock);
	stop = t->k->exiting;
	pthread_mutex_unlock(&t->k->lock);
	return stop || t->exiting;
}

bool task_interrupted(struct task *t)
{
	return task_should_stop(t);
}

int task_sleep_until(struct task *t, int clock, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000ull),
		.tv_nsec = (long)(deadline_ns % 1000000000ull),
	};
	int op = FUTEX_WAIT_BITSET_PRIVATE | (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);

	for (;;) {
		uint32_t seq = __atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST);
		long r;
		if (task_interrupted(t))
			return -EINTR;
		r = syscall(SYS_futex, &t->wake_seq, op, seq, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
		if (r < 0 && errno == ETIMEDOUT)
			return 0;
	}
}

struct user_regs_struct *task_regs(struct task *t)
{
	if (t->cpu.valid != CPU_REGS_ALL && t->ctx->ops->fetch_regs(t->ctx, &t->cpu) < 0)
		task_exit_group(t, 128 + SIGKILL);
	return &t->cpu.regs;
}

void task_exit_group(struct task *t, int status)
{
	t->exiting = true;
	kernel_group_exit(t->k, status);
}

/* Linux's default action for each signal: does it end the process? */
static bool default_kills(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
		return false;
	default:
		return sig > 0 && sig <= GUEST_NSIG;
	}
}

void task_force_signal(struct task *t, int sig)
{
	const struct k_sigaction *sa = &t->sigactions[sig - 1];

	if (sa->handler == (uint64_t)(uintptr_t)SIG_IGN && sig != SIGKILL)
		return;
	if (sa->handler == (uint64_t)(uintptr_t)SIG_DFL && !default_kills(sig))
		return;
	/* A handler would run here once signal delivery exists; until then the
	 * signal takes its default action. */
	if (sa->handler != (uint64_t)(uintptr_t)SIG_DFL)
		log_info("signal %d to pid %d (%s): handlers are not run yet, default action taken",
			 sig, t->tgid, t->comm);
	task_exit_group(t, 128 + sig);
}

struct task *task_get(struct task *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

/* The last reference: only the memory of the task is left. */
void task_put(struct task *t)
{
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	free(t);
}

/* The task has exited: release what it held and leave the kernel's lists. */
static void task_release(struct task *t)
{
	struct kernel *k = t->k;
	struct mm *mm = t->mm;
	struct fdtable *files = t->files;
	struct fs_struct *fs = t->fs;
	bool done;

	pthread_mutex_lock(&k->lock);
	if (k->init == t)
		k->init = NULL;
	list_del(&t->knode);
	t->mm = NULL;
	t->files = NULL;
	t->fs = NULL;
	done = --k->live_tasks == 0;
	pthread_mutex_unlock(&k->lock);
	mm_put(mm);
	fdtable_put(files);
	fs_struct_put(fs);
	path_put(&t->exe);
	t->ctx->ops->release(t->ctx);
	t->ctx = NULL;
	free(t->init_path);
	for (char **p = t->init_argv; p && *p; p++)
		free(*p);
	for (char **p = t->init_envp; p && *p; p++)
		free(*p);
	free(t->init_argv);
	free(t->init_envp);
	if (done) {
		pthread_mutex_lock(&k->lock);
		k->done = true;
		pthread_cond_broadcast(&k->cond);
		pthread_mutex_unlock(&k->lock);
	}
	task_put(t);
}

/* The exit status a shell reports when a program cannot be run. */
static int exec_failure_status(int err)
{
	return err == -ENOENT ? 127 : 126;
}

void *task_main(void *arg)
{
	struct task *t = arg;
	const char *why = NULL;
	sigset_t all;
	struct pevent ev;
	int ret;

	/* Host signals are the main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	current = t;

	ret = task_exec_init(t, &why);
	if (ret < 0) {
		log_error("cannot run `%s`: %s", t->init_path, why ? why : strerror(-ret));
		task_exit_group(t, exec_failure_status(ret));
	}
	while (!task_should_stop(t)) {
		ret = t->ctx->ops->switch_to(t->ctx, t->mm->as, &t->cpu, &ev);
		if (ret < 0) {
			/* The stub died under us (killed from outside): so does the guest. */
			log_warning("pid %d (%s): guest process lost: %s", t->tgid, t->comm,
				    strerror(-ret));
			task_exit_group(t, 128 + SIGKILL);
			break;
		}
		switch (ev.kind) {
		case PEVENT_SYSCALL:
			syscall_dispatch(t);
			break;
		case PEVENT_SYSCALL32:
			/* The 32-bit entry points are never 64-bit calls in disguise. */
			if (kernel_note_unsupported(t->k, 1023))
				log_info("unsupported syscall ABI (int 0x80/sysenter/x32, nr %llu) "
					 "by %s",
					 (unsigned long long)t->cpu.regs.orig_rax, t->comm);
			t->cpu.regs.rax = (uint64_t)-ENOSYS;
			task_regs_dirty(t, CPU_DIRTY_RAX);
			break;
		case PEVENT_FAULT:
			task_handle_fault(t, &ev);
			break;
		case PEVENT_INTERRUPT:
			break;
		}
	}
	task_release(t);
	return NULL;
}
