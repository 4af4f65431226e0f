/*
 * The sandbox's out-of-memory monitor. A guest's stores to memory it has
 * mapped never pass through the sentry, so the memory account
 * (sentry/mm/memacct.h) learns of them only by measuring: one thread per
 * sandbox with a memory limit looks at the usage, more often the closer it
 * is to the limit, and when the sandbox is over, ends the guest process
 * holding the most memory with SIGKILL, as Linux's OOM killer would in a
 * memory cgroup. The host cgroup rung puts the sandbox in, where it can
 * make one, is the backstop above that.
 */
#ifndef RUNG_OOM_H
#define RUNG_OOM_H

#include <stdint.h>

struct kernel;

/* oom_score_adj's range; OOM_SCORE_ADJ_MIN exempts a process. */
#define OOM_SCORE_ADJ_MIN (-1000)
#define OOM_SCORE_ADJ_MAX 1000

/* Linux's oom_badness: the resident pages, plus adj thousandths of all
 * (total bytes); INT64_MIN for a process that is never chosen. The
 * monitor ends the process with the most; /proc/<pid>/oom_score shows it. */
int64_t oom_badness(uint64_t rss, int adj, uint64_t total);

/* Start the monitor (once; nothing without a memory limit). After the
 * sandbox confined itself: it is a thread. Takes k->lock. */
void oom_start(struct kernel *k);
/* Stop it and wait for its thread (kernel_destroy). */
void oom_stop(struct kernel *k);
/* How many processes it ended. */
unsigned oom_kills(const struct kernel *k);

#endif
