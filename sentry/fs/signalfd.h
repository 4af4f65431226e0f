/*
 * signalfd: a file whose reads take the reader's pending signals of its
 * mask (Linux's fs/signalfd.c).
 */
#ifndef RUNG_SIGNALFD_H
#define RUNG_SIGNALFD_H

#include <stdbool.h>
#include <stdint.h>

struct file;

/* A new signalfd for the signals of mask (SIGKILL and SIGSTOP left out);
 * flags: O_NONBLOCK. */
struct file *signalfd_new(uint64_t mask, int flags);
/* Is f a signalfd? Then set its mask. */
bool signalfd_set_mask(struct file *f, uint64_t mask);
/* A signal was queued: readers waiting on signalfds look again. Called
 * with the kernel's task lock held. */
void signalfd_notify(void);

#endif
