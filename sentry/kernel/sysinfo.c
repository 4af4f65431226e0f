/* The sandbox's own figures (see sysinfo.h). */
#include "config.h"
#include "sentry/kernel/sysinfo.h"
#include "sentry/kernel/kernel.h"
#include "sentry/mm/memfile.h"
#include "sentry/mm/memacct.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

void sandbox_mem(struct kernel *k, struct sandbox_mem *m)
{
	pthread_mutex_lock(&k->lock);
	/* Whole pages, so that MemTotal's kB and sysinfo's bytes agree. */
	m->total = k->cfg.memory_limit & ~(uint64_t)(PAGE_SIZE - 1);
	pthread_mutex_unlock(&k->lock);
	m->used = memacct_usage(&k->mf->acct);
	m->free = m->total > m->used ? m->total - m->used : 0;
	m->committed = __atomic_load_n(&k->mf->allocated, __ATOMIC_RELAXED);
}

uint64_t sandbox_uptime_ns(struct kernel *k)
{
	return monotonic_ns() - k->boot_ns;
}

unsigned sandbox_tasks(struct kernel *k)
{
	unsigned n;

	pthread_mutex_lock(&k->lock);
	n = k->live_tasks;
	pthread_mutex_unlock(&k->lock);
	return n;
}
