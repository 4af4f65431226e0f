/*
 * Polling /proc/sys/kernel/hostname and domainname, as Linux's
 * proc_sys_poll: each change of the name (sethostname, setdomainname)
 * counts an event; an open file remembers the count it last reported, and
 * a poll that finds a newer one reports POLLERR|POLLPRI once. As Linux's,
 * the counts are the kernel's, not a UTS namespace's.
 */
#include "config.h"
#include "sentry/fs/procfs.h"
#include "sentry/fs/procfs_internal.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/wait.h"

#include <poll.h>

struct name_poll {
	unsigned event;
	struct waitq wq;
};

static struct name_poll polls[2] = {{0, WAITQ_INIT(polls[0].wq)}, {0, WAITQ_INIT(polls[1].wq)}};

void procfs_uts_changed(bool domain)
{
	struct name_poll *p = &polls[domain];

	__atomic_add_fetch(&p->event, 1, __ATOMIC_ACQ_REL);
	waitq_wake_events(&p->wq, POLLIN | POLLRDNORM | POLLERR | POLLPRI);
}

unsigned proc_name_poll_event(bool domain)
{
	return __atomic_load_n(&polls[domain].event, __ATOMIC_ACQUIRE);
}

unsigned proc_name_poll(bool domain, unsigned *seen, struct poll_table *pt)
{
	struct name_poll *p = &polls[domain];
	unsigned now;

	poll_wait(pt, &p->wq);
	now = __atomic_load_n(&p->event, __ATOMIC_ACQUIRE);
	if (now == __atomic_exchange_n(seen, now, __ATOMIC_ACQ_REL))
		return PROC_DEFAULT_POLLMASK;
	return POLLIN | POLLRDNORM | POLLERR | POLLPRI;
}
