/*
 * Linux native AIO (io_setup and friends, Linux's fs/aio.c): contexts
 * that belong to an address space, each with a completion ring mapped in
 * the guest (struct aio_ring's header, then io_events) so that libaio can
 * read head and tail from user space. The context id is the ring's guest
 * address, as on Linux. Reads, writes and syncs are done at submit
 * (syscalls/sys_aio.c) and complete into the ring at once; IOCB_CMD_POLL
 * waits on the file's wait queues and completes when it becomes ready.
 */
#ifndef RUNG_AIO_H
#define RUNG_AIO_H

#include <stdbool.h>
#include <stdint.h>

struct task;
struct file;
struct aio_ctx;

/* Linux's default /proc/sys/fs/aio-max-nr. */
#define AIO_MAX_NR_DEFAULT 65536

/* io_setup: a new context for nr_events in t's address space; *id is its
 * ring's guest address. 0 or -EINVAL, -EAGAIN (aio-max-nr), -ENOMEM. */
long aio_setup(struct task *t, unsigned nr_events, uint64_t *id);
/* The live context id names in t's address space (Linux's lookup_ioctx:
 * the ring's id field picks the slot), referenced; NULL when none. */
struct aio_ctx *aio_lookup(struct task *t, uint64_t id);
void aio_ctx_put(struct aio_ctx *c);
/* io_destroy: end c (its ring unmapped, pending polls cancelled, waiters
 * in io_getevents get EINVAL). 0, or -EINVAL when it is already ended. */
long aio_kill(struct aio_ctx *c);
/* The most requests io_submit takes in one call (the ring's nr). */
unsigned aio_nr_events(struct aio_ctx *c);

/* Room for one request: 0, or -EAGAIN when the ring could not take its
 * event. Every reserved request is completed or given back. */
int aio_reserve(struct aio_ctx *c);
void aio_unreserve(struct aio_ctx *c);
/* Complete a reserved request: its io_event into the ring, a signal to
 * the eventfd resfd (may be NULL; the caller keeps its reference). */
void aio_complete(struct aio_ctx *c, uint64_t obj, uint64_t data, int64_t res, int64_t res2,
		  struct file *resfd);
/* IOCB_CMD_POLL for a reserved request: complete now when f is ready for
 * events, else when it becomes so. Takes references on f and resfd.
 * 0, or -EINVAL (f cannot be waited on; the request is given back). */
int aio_poll_start(struct aio_ctx *c, struct file *f, unsigned events, uint64_t obj, uint64_t data,
		   struct file *resfd);
/* io_cancel of the request at obj (the guest's iocb address): 0 when a
 * pending poll was cancelled (its event follows in the ring), -EINVAL when
 * none is pending. */
long aio_cancel(struct aio_ctx *c, uint64_t obj);
/* io_getevents: between min_nr and nr events to uevents, waiting until
 * the absolute CLOCK_MONOTONIC deadline (ns; 0: none), or not at all when
 * nowait. The number of events, or -EINVAL, -EFAULT, -EINTR (interrupted
 * before any event). */
long aio_getevents(struct task *t, struct aio_ctx *c, long min_nr, long nr, uint64_t uevents,
		   bool nowait, uint64_t deadline);

/* /proc/sys/fs/aio-nr (events the live contexts asked for) and aio-max-nr. */
unsigned long aio_nr(void);
unsigned long aio_max_nr(void);

#endif
