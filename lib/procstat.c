/* A process's /proc/PID/stat (procstat.h). */
#include "config.h"
#include "lib/procstat.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool proc_stat_read(int fd, struct proc_stat *st)
{
	char buf[512], *p;
	ssize_t n;

	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return false;
	buf[n] = '\0';
	/* The command name may hold anything, parentheses too: the last ')'
	 * ends it. */
	p = strrchr(buf, ')');
	return p && sscanf(buf, "%d", &st->pid) == 1 &&
	       sscanf(p + 1, " %*c %d %d %d %*d %d", &st->ppid, &st->pgrp, &st->session,
		      &st->tpgid) == 4;
}
