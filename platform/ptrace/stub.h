/*
 * The ptrace platform's stub: the host process in which a guest address
 * space lives. After creation it holds nothing but the stub code page, the
 * guest's windows onto the memory file, and (as its only descriptor) the
 * memory file itself.
 */
#ifndef RUNG_PTRACE_STUB_H
#define RUNG_PTRACE_STUB_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct rung_error;

/* Offsets in the stub code page. */
#define STUB_SYSCALL_OFF 0  /* syscall; int3: injected system calls */
#define STUB_TRAP_AFTER	 3  /* rip after the int3 that ends an injection */
#define STUB_ENTRY_OFF	 8  /* int3: where a new stub stops for its tracer */
#define STUB_CLONE_OFF	 16 /* syscall (clone); the child parks in pause() */
#define STUB_CLONE_AFTER 33 /* rip after the int3 the cloning thread stops at */

/* The flags of the clone that adds a thread to a stub (a host thread in the
 * same process, untraced until its task's sentry thread seizes it). */
#define STUB_CLONE_FLAGS \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM)

/* New stubs run with CPUID faulting on (the host supports it). */
void stub_set_cpuid_faulting(bool on);

/* Map the stub code page into the sentry at a random high address (once). */
int stub_code_init(struct rung_error *err);
uint64_t stub_code_base(void);

/*
 * Fork a stub from the calling thread, which becomes its tracer. On return
 * the stub is stopped, traced with EXITKILL, and its address space holds only
 * the stub page. Returns the stub's pid or -errno.
 */
pid_t stub_spawn(int memfd);

/* Run one system call in the stopped stub thread tid. Returns its result (-errno). */
long stub_inject(pid_t tid, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		 uint64_t a4, uint64_t a5);
/* Add a parked, untraced thread to the stub process of the stopped stub
 * thread tid. Returns the new thread's id or -errno. */
pid_t stub_clone_thread(pid_t tid);
/* End the stopped stub thread tid (not its process), and reap it. */
int stub_exit_thread(pid_t tid);

/* Build the stub's seccomp filter for stub page base and memory file memfd into
 * out; returns its length in instructions. */
#define STUB_FILTER_MAX 32
struct sock_filter;
unsigned short stub_filter(uint64_t base, int memfd, struct sock_filter *out);

#endif
