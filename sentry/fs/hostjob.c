/* rung as a job of the host's shell (hostjob.h). */
#include "config.h"
#include "sentry/fs/hostjob.h"
#include "sentry/kernel/outside.h"
#include "lib/log.h"
#include "lib/procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int stat_fd = -1; /* /proc/self/stat, as the host numbers pids */

void hostjob_init(void)
{
	if (stat_fd < 0)
		stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
}

/* rung's job on its host terminal fd, from /proc/self/stat where it was
 * opened, else from the calls that say it outside a PID namespace. */
static struct proc_stat job_of(int fd)
{
	struct proc_stat j;

	if (!proc_stat_read(stat_fd, &j)) {
		j.pgrp = getpgrp();
		j.session = getsid(0);
		j.tpgid = tcgetpgrp(fd);
	}
	return j;
}

bool hostjob_job_control(int fd)
{
	struct proc_stat j = job_of(fd);

	return j.pgrp != j.session && j.tpgid == j.pgrp;
}

bool hostjob_in_foreground(int fd)
{
	struct proc_stat j = job_of(fd);

	return j.tpgid == j.pgrp;
}

void host_stop_now(int sig)
{
	struct timespec now = {0, 0};
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, sig);
	while (sigtimedwait(&set, NULL, &now) == sig)
		;
	pthread_sigmask(SIG_UNBLOCK, &set, &old);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void host_stop_self(int sig)
{
	int ret;

	if (!outside_present()) {
		host_stop_now(sig);
		return;
	}
	/* The supervisor stops this process; its answer comes once both go on. */
	ret = outside_stop(sig);
	if (ret < 0)
		log_debug("host job: no supervisor to stop with (%s)", strerror(-ret));
}
