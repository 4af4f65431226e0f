/* Tasks: their life on a sentry thread, the run loop, blocking, registers. */
#include "config.h"
#include "sentry/kernel/keys.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/process.h"
#include "sentry/kernel/ptrace.h"
#include "sentry/kernel/ioprio.h"
#include "sentry/kernel/landlock.h"
#include "sentry/kernel/seccomp.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/timers.h"
#include "sentry/kernel/spawn.h"
#include "sentry/mm/mm.h"
#include "sentry/fs/file.h"
#include "syscalls/syscall.h"
#include "sentry/kernel/wait.h"
#include "sentry/vfs/vfs.h"
#include "lib/log.h"
#include "sentry/kernel/pidns.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/ptrace.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sentry threads run C with a bounded depth: 1 MiB is plenty and keeps a
 * sandbox with thousands of tasks small. */
#define TASK_STACK_SIZE (1u << 20)

static __thread struct task *current;

struct task *current_task(void)
{
	return current;
}

/* --- references ----------------------------------------------------------------- */

struct task *task_get(struct task *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

struct mm *task_mm_get(struct task *t)
{
	struct mm *mm;

	pthread_mutex_lock(&t->k->lock);
	mm = t->mm ? mm_get(t->mm) : NULL;
	pthread_mutex_unlock(&t->k->lock);
	return mm;
}

void task_set_mm(struct task *t, struct mm *mm)
{
	pthread_mutex_lock(&t->k->lock);
	t->mm = mm;
	pthread_mutex_unlock(&t->k->lock);
}

/* The last reference: only the memory of the task is left. */
void task_put(struct task *t)
{
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (t->ctx)
		t->ctx->ops->release(t->ctx);
	sigpending_flush(&t->pending, ~0ull);
	seccomp_task_release(t);
	ioprio_task_release(t);
	nsproxy_put(t->nsproxy);
	pidns_put(t->pidns);
	free(t->pid_nrs);
	tg_put(t->tg);
	free(t->cpu.fpu);
	free(t->init_path);
	for (char **p = t->init_argv; p && *p; p++)
		free(*p);
	for (char **p = t->init_envp; p && *p; p++)
		free(*p);
	free(t->init_argv);
	free(t->init_envp);
	free(t);
}

struct thread_group *tg_alloc(struct kernel *k, int tgid, struct thread_group *parent)
{
	struct thread_group *tg = xzalloc(sizeof(*tg));

	tg->refs = 1;
	tg->k = k;
	tg->tgid = tgid;
	list_init(&tg->threads);
	list_init(&tg->children);
	list_init(&tg->sibling);
	sigpending_init(&tg->shared);
	waitq_init(&tg->child_wait);
	waitq_init(&tg->exit_wait);
	tg->parent = parent;
	tg->start_ns = monotonic_ns();
	tg->coredump_filter = COREDUMP_FILTER_DEFAULT;
	return tg;
}

struct thread_group *tg_get(struct thread_group *tg)
{
	__atomic_add_fetch(&tg->refs, 1, __ATOMIC_RELAXED);
	return tg;
}

void tg_put(struct thread_group *tg)
{
	if (!tg || __atomic_sub_fetch(&tg->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	sigpending_flush(&tg->shared, ~0ull);
	pidns_put(tg->pidns);
	free(tg->pid_nrs);
	pthread_mutex_destroy(&tg->child_wait.lock);
	pthread_mutex_destroy(&tg->exit_wait.lock);
	free(tg);
}

void sighand_put(struct sighand *sh)
{
	if (sh && __atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(sh);
}

struct task *task_alloc(struct kernel *k)
{
	struct task *t = xzalloc(sizeof(*t));

	t->refs = 1;
	t->k = k;
	t->start_ns = monotonic_ns();
	t->syscall_nr = -1;
	t->dumpable = true;
	t->altstack.ss_flags = SS_DISABLE;
	sigpending_init(&t->pending);
	list_init(&t->knode);
	list_init(&t->tg_node);
	ptrace_task_init(t);
	if (posix_memalign((void **)&t->cpu.fpu, 64, k->plat->fpu_size) != 0)
		abort();
	memset(t->cpu.fpu, 0, k->plat->fpu_size);
	if (k->plat->ops->ctx_new(k->plat, &t->ctx) < 0)
		abort(); /* allocation only: cannot fail but for memory */
	return t;
}

void task_free_unstarted(struct task *t)
{
	struct mm *mm = t->mm;

	if (mm) {
		/* A CLONE_VM child may already have a stub thread waiting for it. */
		if (mm->as && !t->needs_as)
			mm->as->ops->remove_ctx(mm->as, t->ctx);
		if (!t->needs_as)
			__atomic_sub_fetch(&mm->users, 1, __ATOMIC_SEQ_CST);
		mm_put(mm);
	}
	keys_task_exit(t);
	if (t->files)
		fdtable_put(t->files);
	if (t->fs)
		fs_struct_put(t->fs);
	landlock_task_exit(t);
	path_put(&t->exe);
	sighand_put(t->sighand);
	task_put(t);
}

int task_start(struct task *t)
{
	struct kernel *k = t->k;
	pthread_attr_t attr;
	int ret;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, TASK_STACK_SIZE);
	__atomic_add_fetch(&k->live_threads, 1, __ATOMIC_SEQ_CST);
	ret = pthread_create(&t->thread, &attr, task_main, t);
	pthread_attr_destroy(&attr);
	if (ret == 0)
		return 0;
	kernel_thread_done(k);
	/* Undo what clone linked in. */
	pthread_mutex_lock(&k->lock);
	list_del(&t->knode);
	list_del(&t->tg_node);
	ptrace_unlink_locked(t, 0); /* a clone its parent's tracer attached */
	t->tg->nr_threads--;
	if (t->tg->leader == t && t->tg->nr_threads == 0) {
		list_del_init(&t->tg->sibling);
		list_del_init(&t->tg->knode);
		t->tg->flags |= TG_REAPED;
		tg_put(t->tg); /* the kernel's reference */
	}
	k->live_tasks--;
	pthread_mutex_unlock(&k->lock);
	task_vfork_release(t);
	task_free_unstarted(t);
	return -EAGAIN;
}

/* --- work, waking, blocking ------------------------------------------------------ */

void task_interrupt(struct task *t)
{
	task_wake(t);
	if (t->ctx)
		t->ctx->ops->interrupt(t->ctx);
}

void task_set_work(struct task *t, uint32_t bits)
{
	__atomic_or_fetch(&t->work, bits, __ATOMIC_SEQ_CST);
	if (t != current)
		task_interrupt(t);
}

bool task_interrupted(struct task *t)
{
	return task_signal_pending(t);
}

void task_wait_wake(struct task *t, uint32_t seq)
{
	task_sleep_enter(t);
	while (__atomic_load_n(&t->wake_seq, __ATOMIC_SEQ_CST) == seq)
		syscall(SYS_futex, &t->wake_seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
	task_sleep_leave(t);
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
		task_sleep_enter(t);
		r = syscall(SYS_futex, &t->wake_seq, op, seq, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
		task_sleep_leave(t);
		if (r < 0 && errno == ETIMEDOUT)
			return 0;
	}
}

/* --- registers --------------------------------------------------------------------- */

struct user_regs_struct *task_regs(struct task *t)
{
	if (t->cpu.valid != CPU_REGS_ALL && t->ctx->ops->fetch_regs(t->ctx, &t->cpu) < 0)
		task_exit_group(t, SIGKILL);
	return &t->cpu.regs;
}

/* The state XRSTOR gives for an all-init XSAVE header: x87 and SSE reset. */
static void fpu_init_image(struct platform *p, uint8_t *fpu)
{
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;

	memset(fpu, 0, p->fpu_size);
	memcpy(fpu, &fcw, sizeof(fcw));
	memcpy(fpu + 24, &mxcsr, sizeof(mxcsr));
}

uint8_t *task_fpu(struct task *t)
{
	struct cpu_state *c = &t->cpu;

	if (c->fpu_reset) {
		fpu_init_image(t->k->plat, c->fpu);
		c->fpu_reset = false;
		c->fpu_valid = true;
		c->fpu_dirty = true;
	}
	if (c->fpu_valid || c->fpu_dirty)
		return c->fpu;
	if (t->ctx->ops->fetch_fpu(t->ctx, c) < 0)
		return NULL;
	return c->fpu;
}

int task_exit_status(struct task *t)
{
	int status;

	pthread_mutex_lock(&t->k->lock);
	status = (t->tg->flags & TG_EXITING) ? t->tg->exit_code : t->exit_code;
	pthread_mutex_unlock(&t->k->lock);
	return status;
}

void task_exit_group(struct task *t, int code)
{
	pthread_mutex_lock(&t->k->lock);
	tg_start_exit_locked(t->tg, code);
	pthread_mutex_unlock(&t->k->lock);
}

/* --- the run loop ------------------------------------------------------------------- */

/* The exit status a shell reports when a program cannot be run. */
static int exec_failure_status(int err)
{
	return err == -ENOENT ? 127 : 126;
}

/* A fork child makes its own stub (on this thread, which then traces it). */
static int attach_address_space(struct task *t)
{
	struct address_space *as;
	int ret = t->k->plat->ops->as_new(t->k->plat, &as);

	if (ret == 0)
		ret = mm_attach(t->mm, as);
	t->needs_as = false;
	return ret;
}

static bool has_work(struct task *t)
{
	return __atomic_load_n(&t->work, __ATOMIC_SEQ_CST) != 0;
}

static bool must_exit(struct task *t)
{
	return (__atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & WORK_KILL) != 0;
}

void *task_main(void *arg)
{
	struct task *t = arg;
	struct kernel *k = t->k;
	const char *why = NULL;
	char name[16];
	sigset_t all;
	struct tg_timers *tt;
	struct pevent ev;
	long ret32;
	int ret;

	/* Host signals are the main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	current = t;
	/* Named after its task, for whoever debugs the sentry (ps -L, gdb). */
	snprintf(name, sizeof(name), "task:%d", t->tid);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	__atomic_store_n(&t->host_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);

	if (t->init_path) {
		ret = task_exec_init(t, &why);
		if (t->spawn) {
			/* Whoever spawned us says what went wrong. */
			spawn_report(t->spawn, ret);
			t->spawn = NULL;
		} else if (ret < 0) {
			log_error("cannot run `%s`: %s", t->init_path, why ? why : strerror(-ret));
		}
		if (ret < 0)
			task_exit_group(t, exec_failure_status(ret) << 8);
	} else if (t->needs_as) {
		ret = attach_address_space(t);
		if (ret < 0) {
			log_warning("pid %d: no address space for the child: %s", t->tgid,
				    strerror(-ret));
			task_exit_group(t, SIGKILL);
		}
	}
	for (;;) {
		if (has_work(t))
			signal_do_work(t);
		if (must_exit(t)) {
			ptrace_event(t, PTRACE_EVENT_EXIT, (uint64_t)task_exit_status(t));
			break;
		}
		mm_eof_sync(t->mm);
		tt = timers_guest_enter(t); /* CPU timers watch who runs guest code */
		__atomic_add_fetch(&t->guest_seq, 1, __ATOMIC_SEQ_CST);
		ret = t->ctx->ops->switch_to(t->ctx, t->mm->as, &t->cpu, &ev);
		__atomic_add_fetch(&t->guest_seq, 1, __ATOMIC_SEQ_CST);
		timers_guest_leave(tt);
		if (ret < 0) {
			/* The stub died under us (killed from outside): so does the guest. */
			log_warning("pid %d (%s): guest process lost: %s", t->tgid, t->comm,
				    strerror(-ret));
			task_exit_group(t, SIGKILL);
			continue;
		}
		switch (ev.kind) {
		case PEVENT_SYSCALL:
			if (ptrace_syscall_entry(t)) {
				/* Skipped: it returns what rax holds (-ENOSYS unless
				 * the tracer put something else there). */
				task_regs_dirty(t, CPU_DIRTY_RAX);
				ptrace_syscall_exit(t);
				if (has_work(t))
					signal_do_work(t);
				break;
			}
			t->syscall_nr = (long)t->cpu.regs.orig_rax;
			syscall_dispatch(t);
			ptrace_syscall_exit(t);
			if (has_work(t) || is_restart_code((long)t->cpu.regs.rax))
				signal_do_work(t);
			t->syscall_nr = -1;
			break;
		case PEVENT_SYSCALL32:
			/* The 32-bit entry points are never 64-bit calls in disguise
			 * (but the guest's seccomp filters see them, as in Linux). */
			ret32 = -ENOSYS;
			if (!seccomp_syscall32(t, &ret32) && kernel_note_unsupported(k, 1023))
				log_info("unsupported syscall ABI (int 0x80/sysenter/x32, nr %llu) "
					 "by %s",
					 (unsigned long long)t->cpu.regs.orig_rax, t->comm);
			t->cpu.regs.rax = (uint64_t)ret32;
			task_regs_dirty(t, CPU_DIRTY_RAX);
			break;
		case PEVENT_FAULT:
			task_handle_fault(t, &ev);
			break;
		case PEVENT_INTERRUPT:
			break;
		}
	}
	task_do_exit(t);
	/* A stub process this thread made may still serve other tasks: the
	 * platform keeps this thread until it is gone. */
	snprintf(name, sizeof(name), "done:%d", t->tid);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	if (k->plat->ops->thread_exit)
		k->plat->ops->thread_exit(k->plat);
	current = NULL;
	task_put(t);
	kernel_thread_done(k);
	return NULL;
}
