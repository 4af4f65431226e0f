/*
 * rung as a job of the host's shell: is it in the terminal's foreground,
 * and stopping it as a job stops.
 *
 * `rung do` runs the sentry as the init of a PID namespace of its own
 * (runsc-compat/do_supervisor.c), where the process groups of the host's
 * shell are invisible: getpgrp(), getsid() and tcgetpgrp() all say 0
 * there, and an init cannot stop itself (the kernel ignores its own stop
 * signals). So the sentry reads its host process group, session and the
 * terminal's foreground group from /proc/self/stat, opened before it
 * confines itself (the host's /proc numbers pids as the host does), and
 * asks the supervisor outside to stop it.
 */
#ifndef RUNG_HOSTJOB_H
#define RUNG_HOSTJOB_H

#include <stdbool.h>

/* Before confinement: read the job state from /proc/self/stat from now on.
 * Stops go through the supervisor where there is one (outside.h). */
void hostjob_init(void);

/* Is rung a job of a job-control shell on its controlling terminal fd: a
 * process group of its own (not its session leader's), in the foreground? */
bool hostjob_job_control(int fd);
/* Is rung's process group the foreground group of terminal fd? */
bool hostjob_in_foreground(int fd);

/* Stop rung on the host with sig, as a job stops (until SIGCONT). */
void host_stop_self(int sig);
/* This process stops with sig now (the calling thread takes it, blocked
 * or not), until SIGCONT. One already pending goes first, taken: it would
 * stop the process a second time once continued. */
void host_stop_now(int sig);

#endif
