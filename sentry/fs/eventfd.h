/* eventfd: a 64-bit counter that writes add to and reads take. */
#ifndef RUNG_EVENTFD_H
#define RUNG_EVENTFD_H

#include <stdbool.h>
#include <stdint.h>

struct file;

#define EFD_SEMAPHORE_FLAG 1

/* A new eventfd file with the counter at count; flags: EFD_SEMAPHORE plus
 * status flags (O_NONBLOCK). */
struct file *eventfd_file_new(uint64_t count, int flags);

/* Is f an eventfd? */
bool file_is_eventfd(struct file *f);
/* Add n to eventfd f's counter without blocking (AIO completions), as
 * Linux's eventfd_signal: the counter stops at its maximum. */
void eventfd_signal(struct file *f, uint64_t n);

#endif
