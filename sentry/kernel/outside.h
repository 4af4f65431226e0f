/*
 * The process outside the sandbox: `rung do`'s supervisor
 * (runsc-compat/do_supervisor.c), which stays in the PID namespace rung
 * was started in while the sandbox process is the init of one of its own.
 * What the sandbox process cannot do itself in there goes through it, over
 * one SOCK_SEQPACKET socket:
 *
 *   stop:  "S" sig     the supervisor stops this process (an init cannot
 *                      stop itself) and itself with sig, as a job stops;
 *                      the answer "S" comes once both are continued
 *   keeper: "K" ifindex...  (ints; SCM_RIGHTS: the network namespace, the
 *                      keeper's end of its socket, the log) the supervisor
 *                      starts `rung netkeep` for those interfaces in that
 *                      network namespace (sentry/net/keeper.h), outside the
 *                      sandbox's PID namespace, whose processes die with
 *                      its init: it must outlive the sentry. The answer
 *                      is "K" and its pid (or -errno) as an int. Once per
 *                      sandbox: the supervisor refuses a second.
 *
 * The supervisor builds the keeper's command line itself: a sandbox taken
 * over can have it start nothing else.
 */
#ifndef RUNG_OUTSIDE_H
#define RUNG_OUTSIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OUTSIDE_STOP   'S'
#define OUTSIDE_KEEPER 'K'
/* At most this many interfaces in a keeper request. */
#define OUTSIDE_MAX_IFS 64

/* The socket to the supervisor (before confinement); -1: there is none. */
void outside_init(int fd);
bool outside_present(void);
/* 0 once stopped and continued, or -errno (no supervisor). */
int outside_stop(int sig);
/* The keeper's pid (the supervisor's numbering), or -errno. */
int outside_keeper(const int *ifs, size_t nifs, int sock, int log);

#endif
