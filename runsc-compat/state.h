/*
 * The state directory of a container: <root>/<id>/ holding state.json (what
 * `state` reports and what the other commands need), a lock file every
 * state transition holds (flock), and the sandbox's control socket.
 */
#ifndef RUNG_STATE_H
#define RUNG_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct rung_error;

#define STATE_DEFAULT_ROOT "/run/rung"

enum container_status {
	STATUS_CREATING,
	STATUS_CREATED,
	STATUS_RUNNING,
	STATUS_PAUSED,
	STATUS_STOPPED,
};

struct container_state {
	char *id;
	pid_t pid;	    /* the sandbox process on the host */
	uint64_t pid_start; /* its start time (/proc/pid/stat field 22), to tell reuse */
	char *bundle;	    /* absolute */
	char *rootfs;
	char *created;	   /* RFC 3339, nanoseconds */
	char *owner;	   /* "" as runc */
	char *annotations; /* JSON object */
	char *cgroup;	   /* the host cgroup path the sandbox is in, or NULL */
	bool started;	   /* `start` has released the workload */
	bool paused;
	char *isolation; /* "container" (isolation level 1: pid is the container's
			  * init), or NULL: the sentry */
};

/* Is id a name rung accepts (runc's rule: [A-Za-z0-9_+.-]+, not . or ..)? */
bool state_valid_id(const char *id);

/* Create <root>/<id>/ for a new container and lock it; the lock fd is
 * returned. "container with id exists" when it is there already. */
int state_create(const char *root, const char *id, int *lockfd, struct rung_error *err);
/* Lock an existing container's state: "container does not exist" otherwise. */
int state_lock(const char *root, const char *id, int *lockfd, struct rung_error *err);
/* The file of this container's state directory named name (malloc'd). */
char *state_path(const char *root, const char *id, const char *name);

/* Write and read state.json (written atomically: a temporary, then rename). */
int state_save(const char *root, const struct container_state *st, struct rung_error *err);
int state_load(const char *root, const char *id, struct container_state *st,
	       struct rung_error *err);
void state_release(struct container_state *st);
/* Remove the state directory (a locked caller's last act). */
void state_remove(const char *root, const char *id);

/* The status now: the sandbox's liveness decides stopped (a zombie, or a
 * pid reused by another process, is stopped). */
enum container_status state_status(const struct container_state *st);
const char *state_status_name(enum container_status s);
/* The start time of process pid (0 if it does not exist or is a zombie). */
uint64_t state_pid_start(pid_t pid);

/* runc's `state` JSON for st (malloc'd). */
char *state_json(const struct container_state *st);
/* The current time as RFC 3339 with nanoseconds, UTC (malloc'd). */
char *state_now_rfc3339(void);

/* The ids of every container under root (malloc'd array of malloc'd strings). */
int state_list(const char *root, char ***ids, size_t *n);

#endif
