/*
 * For the System V IPC guest tests: natively they run in an IPC namespace
 * of their own (they are root there), never in the host's; in rung the
 * sandbox's namespace is its own already, so a refused unshare is fine.
 * Either way the first object made gets index 0.
 */
#ifndef RUNG_IPCGUEST_H
#define RUNG_IPCGUEST_H

#include "guest.h"

#include <sched.h>
#include <sys/wait.h>

static inline void ipc_own_namespace(void)
{
	(void)unshare(CLONE_NEWIPC);
}

/* Wait for child pid; its exit status, or 128 + the signal that ended it. */
static inline int ipc_wait(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif
