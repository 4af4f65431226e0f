/*
 * Host cgroups of a container: the sandbox process (and so the gofer and
 * every stub it starts) lives in linux.cgroupsPath, so that the shim's
 * stats and OOM events, `pause` and the resource limits all apply to it.
 * cgroup v1 (one hierarchy per controller) and v2 (unified).
 */
#ifndef RUNG_CGROUP_H
#define RUNG_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

struct rung_error;
struct oci_resources;

/* Where rung's own cgroups go when nothing names a place: a container
 * without cgroupsPath (/rung/ID), rung do's sandboxes (/rung/do-PID).
 * rung makes it, and removes it when the last cgroup in it goes. */
#define CGROUP_DEFAULT_PARENT "/rung"

/* The cgroup path for a spec's cgroupsPath ("/docker/<id>", or systemd's
 * "slice:prefix:name" with systemd set), or a default for id (malloc'd). */
char *cgroup_path(const char *cgroups_path, const char *id, bool systemd);

/* Create the cgroup at path (every controller) and apply res. */
int cgroup_create(const char *path, const struct oci_resources *res, struct rung_error *err);
/* The same in the v1 controllers of the comma-separated list only (NULL:
 * all; v2 has one hierarchy), with no resources. */
int cgroup_create_in(const char *path, const char *only, struct rung_error *err);
int cgroup_join_in(const char *path, pid_t pid, const char *only, struct rung_error *err);
/* Move process pid into path; pid 0 is the caller, which must have a
 * single thread (then the move is cheap, see cgroup.c). */
int cgroup_join(const char *path, pid_t pid, struct rung_error *err);
/* The cgroup.procs files of the caller's own cgroups, in each hierarchy
 * cgroup_join moves a process through (NULL-terminated, malloc'd): where
 * a helper that must not share the container's cgroup goes back to. */
char **cgroup_self_procs(void);
/* Apply a LinuxResources JSON object (update --resources, and create's
 * linux.resources) to path: zero means unset, -1 unlimited. */
int cgroup_update(const char *path, const char *resources_json, struct rung_error *err);
/* Refuse the members of a LinuxResources object rung cannot honour (set
 * to anything but their zero value), naming them under prefix. */
int cgroup_check_resources(const char *resources_json, const char *prefix, struct rung_error *err);
/* The path of a cgroup file: v1 in controller's hierarchy, v2 unified. */
char *cgroup_file(const char *path, const char *v1_controller, const char *file);
bool cgroup_v2(void);
/* Freeze or thaw everything in path. */
int cgroup_freeze(const char *path, bool frozen, struct rung_error *err);
/* The pids in path (malloc'd). */
int cgroup_pids(const char *path, pid_t **pids, size_t *n);
/* SIGKILL every process in path (delete --force: what the sandbox left). */
void cgroup_kill(const char *path);
/* Remove the cgroup once it is empty (waiting a moment for processes that
 * are on their way out), and CGROUP_DEFAULT_PARENT with it when path was
 * in it and it is empty now; errors are ignored: the caller is cleaning up. */
void cgroup_remove(const char *path);
/* Remove it now if it is empty (true when it is gone), no waiting. */
bool cgroup_try_remove(const char *path);

#endif
