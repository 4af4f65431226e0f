/*
 * rung do's supervisor serving its sandbox's requests
 * (sentry/kernel/outside.h): job-control stops, and the keeper of a
 * network namespace's addresses, started here, outside the sandbox's PID
 * namespace.
 */
#ifndef RUNG_DO_OUTSIDE_H
#define RUNG_DO_OUTSIDE_H

#include <stdbool.h>
#include <sys/types.h>

struct do_outside {
	int fd;	       /* the socket to the sandbox process, -1 once closed */
	pid_t sandbox; /* the sandbox process */
	pid_t keeper;  /* the keeper while it lives, else 0 */
	bool keeper_started;
};

/* Serve one request: 1 done, 0 the socket closed, -1 the sandbox process
 * ended during a stop (*status its wait status). */
int do_outside_serve(struct do_outside *o, int *status);
/* Reap the keeper if it ended (SIGCHLD). */
void do_outside_reap(struct do_outside *o);
/* Wait for the keeper: it gives the addresses back once the sandbox's end
 * of its socket is closed, so that the namespace is whole when rung do
 * returns. */
void do_outside_wait(struct do_outside *o);

#endif
