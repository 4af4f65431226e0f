/* rung as a job of the host's shell (hostjob.h). */
#include "config.h"
#include "sentry/fs/hostjob.h"
#include "sentry/kernel/outside.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

static int stat_fd = -1; /* /proc/self/stat, as the host numbers pids */

void hostjob_init(void)
{
	if (stat_fd < 0)
		stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
}

struct job {
	long pgrp, session, tpgid;
};

/* Fields 5, 6 and 8 of /proc/self/stat, after the command name (which may
 * hold anything, parentheses too: the last ')' ends it). */
static bool read_stat(struct job *j)
{
	char buf[512], *p;
	ssize_t n;

	if (stat_fd < 0 || (n = pread(stat_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p &&
	       sscanf(p + 1, " %*c %*d %ld %ld %*d %ld", &j->pgrp, &j->session, &j->tpgid) == 3;
}

static struct job job_of(int fd)
{
	struct job j;

	if (!read_stat(&j)) {
		j.pgrp = getpgrp();
		j.session = getsid(0);
		j.tpgid = tcgetpgrp(fd);
	}
	return j;
}

bool hostjob_job_control(int fd)
{
	struct job j = job_of(fd);

	return j.pgrp != j.session && j.tpgid == j.pgrp;
}

bool hostjob_in_foreground(int fd)
{
	struct job j = job_of(fd);

	return j.tpgid == j.pgrp;
}

/* The calling thread takes sig; every thread stops until SIGCONT. */
static void stop_now(int sig)
{
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, &old);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void host_stop_self(int sig)
{
	int ret;

	if (!outside_present()) {
		stop_now(sig);
		return;
	}
	/* The supervisor stops this process; its answer comes once both go on. */
	ret = outside_stop(sig);
	if (ret < 0)
		log_debug("host job: no supervisor to stop with (%s)", strerror(-ret));
}
