/*
 * rung do's supervisor. The sandbox process (the sentry) runs as the init
 * of a PID namespace of its own, so that the only processes it can signal
 * are its own (its stubs and gofer), and in a host cgroup of its own
 * (/rung/do-PID, where rung can make one) that bounds what it may hold of
 * the host's memory and PIDs. rung do's own process stays outside, with
 * the caller: it relays signals meant for the program, stops and
 * continues with the sandbox as a job of the caller's shell
 * (sentry/fs/hostjob.h), removes the cgroup when the sandbox is gone, and
 * exits with the sandbox's status.
 */
#ifndef RUNG_DO_SUPERVISOR_H
#define RUNG_DO_SUPERVISOR_H

#include <stdint.h>

struct rung_error;

/* rung do's defaults, which a laptop survives whatever the program does:
 * half the host's RAM, and 1024 tasks (threads count: each one is a
 * sentry thread and a stub thread on the host). */
#define DO_DEFAULT_MEMORY_SHARE 2
#define DO_DEFAULT_TASK_LIMIT	1024

struct do_limits {
	uint64_t memory; /* the guest's memory limit, bytes */
	unsigned tasks;	 /* the guest's task limit */
};

/* The host cgroup's memory limit for a guest limit: the guest's memory and
 * the sandbox's own (the sentry's heap, the stubs' page tables, the gofer). */
uint64_t do_cgroup_memory(uint64_t guest);

/* Start the sandbox process. Returns 0 in it, with *sock its end of the
 * socket to the supervisor (> 2; sentry/kernel/outside.h); the supervisor
 * never returns but exits with the sandbox's status; -1 with err when
 * nothing could start. */
int do_supervise(const struct do_limits *l, int *sock, struct rung_error *err);

#endif
