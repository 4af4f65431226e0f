/*
 * epoll: an interest set of (file, fd) entries, a ready list filled by
 * wake-up callbacks on the watched files' wait queues, and the scan that
 * epoll_wait makes of it (level-triggered entries go back on the list,
 * edge-triggered ones wait for the next wake-up, one-shot ones are
 * disarmed). Linux's fs/eventpoll.c, including its locking shape:
 *
 *   ep->mtx      the interest set; held while scanning and calling poll ops
 *   target waitq held while a callback runs
 *   ep->lock     the ready list; taken by callbacks, so innermost
 *
 * Entries do not hold their file: the file's last close removes them
 * (eventpoll_release_file from file_put), as on Linux.
 */
#ifndef RUNG_EPOLL_H
#define RUNG_EPOLL_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct task;

/* struct epoll_event as x86-64 lays it out (packed: 12 bytes). */
struct epoll_uevent {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));

/* A new epoll file (status flags: O_RDWR plus O_CLOEXEC-free flags). */
struct file *epoll_file_new(int flags);
bool file_is_epoll(struct file *f);

/*
 * epoll_ctl on epoll file f for target tf, open as fd. ev is the event the
 * caller copied in (ADD and MOD; it may be changed). Returns 0 or -errno
 * (EPERM, EINVAL, ELOOP, EEXIST, ENOENT), in Linux's order of checks.
 */
int epoll_ctl_file(struct file *f, int op, int fd, struct file *tf, struct epoll_uevent *ev);

/*
 * epoll_wait on f (-EINVAL when it is not an epoll file): up to maxevents
 * events copied to the guest's uevents. deadline: NULL waits for ever, 0
 * does not wait, else an absolute CLOCK_MONOTONIC time in ns. Returns the
 * number of events, 0 on timeout, -EFAULT, or -EINTR.
 */
long epoll_wait_file(struct task *t, struct file *f, uint64_t uevents, int maxevents,
		     const uint64_t *deadline);

/* kcmp's KCMP_EPOLL_TFD: the toff-th file the epoll f watches as fd tfd
 * (its identity only: not a reference), or NULL. */
const void *epoll_target_id(struct file *f, int tfd, unsigned long toff);

/* The last reference to f went: take it out of every epoll set. */
void eventpoll_release_file(struct file *f);

#endif
