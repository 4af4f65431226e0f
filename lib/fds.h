/* Closing the descriptors a process inherited and has no use for. */
#ifndef RUNG_LIB_FDS_H
#define RUNG_LIB_FDS_H

#include <stddef.h>

/* Close every descriptor from lo up but those in keep (entries < lo are
 * ignored, -1 included): with close_range where the kernel has it, else
 * one by one up to the hard RLIMIT_NOFILE. Async-signal-safe (it runs
 * between fork and exec). */
void fds_close_from(int lo, const int *keep, size_t n);

/* What a caller handed `rung do` beyond stdio (`rung do 5</secret`): gone,
 * before anything else opens a file. Only 0-2 and the log file stay. */
void fds_close_inherited(void);

#endif
