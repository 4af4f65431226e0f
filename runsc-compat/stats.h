/*
 * A container's resource usage, read from its host cgroup (the sandbox,
 * its gofer and stubs are all there), in the shape of runc's `events`
 * stats: cpu (usage total, per CPU, user and kernel; throttling), memory
 * (usage, limit, max usage, failures; swap; memory.stat as raw), pids
 * (current, limit), blkio and hugetlb (empty).
 */
#ifndef RUNG_STATS_H
#define RUNG_STATS_H

struct json_object;

/* The "data" object of a stats event for the cgroup at path (new reference). */
struct json_object *stats_read(const char *cgroup_path);

#endif
