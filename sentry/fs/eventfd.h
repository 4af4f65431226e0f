/* eventfd: a 64-bit counter that writes add to and reads take. */
#ifndef RUNG_EVENTFD_H
#define RUNG_EVENTFD_H

#include <stdint.h>

struct file;

#define EFD_SEMAPHORE_FLAG 1

/* A new eventfd file with the counter at count; flags: EFD_SEMAPHORE plus
 * status flags (O_NONBLOCK). */
struct file *eventfd_file_new(uint64_t count, int flags);

#endif
