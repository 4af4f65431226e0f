/*
 * A process's /proc/PID/stat: the fields rung reads, numbered as the /proc
 * they come from numbers pids (the host's /proc: host pids, even for a
 * process in a PID namespace of its own, where getpid() says otherwise).
 */
#ifndef RUNG_PROCSTAT_H
#define RUNG_PROCSTAT_H

#include <stdbool.h>

struct proc_stat {
	int pid, ppid, pgrp, session, tpgid; /* fields 1, 4, 5, 6 and 8 */
};

/* Read the stat file open at fd (from its start: each call reads it anew).
 * false when it cannot be read or parsed. */
bool proc_stat_read(int fd, struct proc_stat *st);

#endif
