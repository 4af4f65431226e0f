/*
 * What `--isolation=auto` remembers: for each workload (rootfs and
 * command) that ran in the sentry under auto, whether the sentry met
 * system calls it does not support. A record is a small text file,
 * <state root>/compat/<key>, written by the sandbox through a descriptor
 * opened before it is confined. `auto` moves a workload whose record lists
 * unsupported calls to the microVM level; `rung compat` shows the records.
 */
#ifndef RUNG_COMPAT_H
#define RUNG_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

/* The record's name for a workload (malloc'd hex). */
char *compat_key(const char *rootfs, char *const *argv);

/* Start the record of a sentry run: its header is written now; the fd
 * (or -1) is for compat_finish. */
int compat_open(const char *root, const char *rootfs, char *const *argv);
/* End it: one "unsupported NAME" line per system call in seen (the
 * kernel's bitmap of numbers), then close fd. Uses write(2) only. */
void compat_finish(int fd, const uint64_t *seen, unsigned nbits);

/* Does the record of this workload say it needs a kernel? The calls it
 * listed in *why (malloc'd, "" when none or no record). */
bool compat_needs_kernel(const char *root, const char *rootfs, char *const *argv, char **why);

#endif
