/*
 * Helpers for the seccomp guest tests: classic-BPF filters built from a
 * few shapes, installed with seccomp(2), and children that try something
 * and report how they ended. Include after guest.h.
 */
#ifndef RUNG_SECCOMPGUEST_H
#define RUNG_SECCOMPGUEST_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define SD_NR	 offsetof(struct seccomp_data, nr)
#define SD_ARCH	 offsetof(struct seccomp_data, arch)
#define SD_IP	 offsetof(struct seccomp_data, instruction_pointer)
#define SD_ARG(i) (offsetof(struct seccomp_data, args) + 8 * (i)) /* the low word */

#define LD_ABS(k)	   BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (k))
#define RET(k)		   BPF_STMT(BPF_RET | BPF_K, (k))
#define JEQ(k, jt, jf)	   BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define ERRNO(e)	   (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))
#define ARRAY_LEN(a)	   (sizeof(a) / sizeof((a)[0]))

/* seccomp(SECCOMP_SET_MODE_FILTER, flags, program): the raw result. */
static inline long sc_install(unsigned flags, const struct sock_filter *insns, unsigned len)
{
	struct sock_fprog p = {.len = (unsigned short)len, .filter = (struct sock_filter *)insns};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

/* A filter that returns ret for system call nr (x86-64) and allows the rest. */
static inline long sc_on_nr(unsigned flags, int nr, uint32_t ret)
{
	struct sock_filter f[] = {
		LD_ABS(SD_ARCH),
		JEQ(AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		LD_ABS(SD_NR),
		JEQ((uint32_t)nr, 0, 1),
		RET(ret),
		RET(SECCOMP_RET_ALLOW),
	};

	return sc_install(flags, f, ARRAY_LEN(f));
}

/* A filter that returns ret for system call nr when its first argument's
 * low word is arg0, and allows the rest. */
static inline long sc_on_nr_arg0(int nr, uint32_t arg0, uint32_t ret)
{
	struct sock_filter f[] = {
		LD_ABS(SD_NR),	    JEQ((uint32_t)nr, 0, 3), LD_ABS(SD_ARG(0)),
		JEQ(arg0, 0, 1),    RET(ret),		     RET(SECCOMP_RET_ALLOW),
	};

	return sc_install(0, f, ARRAY_LEN(f));
}

static inline void sc_no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		printf("FAIL: PR_SET_NO_NEW_PRIVS (errno %d)\n", errno);
		exit(1);
	}
}

/* Run fn in a child process (whose output goes to our stdout) and return
 * its wait status. */
static inline int sc_child(void (*fn)(void))
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(GUEST_DONE());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* How a child ended, as a line that is the same natively and in rung (the
 * core-dump bit left out: it depends on the host's core settings). */
static inline void sc_print_status(const char *what, int status)
{
	if (WIFEXITED(status))
		printf("%s: exit %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
	else
		printf("%s: status %#x\n", what, status);
	fflush(stdout);
}

/* The number on the line "key:\tN" of the calling thread's status file, or -1. */
static inline long sc_status_field(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

#endif
