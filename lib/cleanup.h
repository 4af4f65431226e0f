/* Scope-bound ownership: cleanup attributes and explicit hand-over. */
#ifndef RUNG_CLEANUP_H
#define RUNG_CLEANUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void cleanup_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/* Kill and reap a child that was not handed over before the scope ended. */
static inline void cleanup_pidp(pid_t *pid)
{
	if (*pid > 0) {
		int saved = errno, status;
		kill(*pid, SIGKILL);
		while (waitpid(*pid, &status, __WALL) < 0 && errno == EINTR)
			;
		errno = saved;
	}
}

#define cleanup_free  __attribute__((cleanup(cleanup_freep)))
#define cleanup_close __attribute__((cleanup(cleanup_closep)))
#define cleanup_file  __attribute__((cleanup(cleanup_fclosep)))
#define cleanup_dir   __attribute__((cleanup(cleanup_closedirp)))
#define cleanup_pid   __attribute__((cleanup(cleanup_pidp)))

static inline void *(steal_pointer)(void *pp)
{
	void **ptr = (void **)pp;
	void *ref = *ptr;
	*ptr = NULL;
	return ref;
}
/* Type-preserving: `p = steal_pointer(&q)` leaves q NULL and keeps q's type. */
#define steal_pointer(pp) (0 ? (*(pp)) : (steal_pointer)(pp))

static inline int steal_fd(int *fd)
{
	int ret = *fd;
	*fd = -1;
	return ret;
}

#endif
