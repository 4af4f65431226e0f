/*
 * Native AIO contexts and their completion rings (see aio.h).
 *
 * Locks: aio_lock guards every address space's table and aio-nr; a
 * context's lock guards its ring and its pending polls, and is taken
 * before the guest memory lock (ring reads and writes) and before the
 * poll worker's lock. Poll wake-ups come under the file's wait queue lock
 * from whoever made the file ready: they only hand the request to the
 * worker thread, which polls the file again and writes the ring.
 */
#include "config.h"
#include "sentry/kernel/aio.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/fs/eventfd.h"
#include "sentry/fs/file.h"
#include "sentry/mm/mm.h"
#include "lib/list.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* struct aio_ring's header, as the guest reads it (linux/fs/aio.c). */
struct aio_ring_hdr {
	uint32_t id; /* the context's slot in its address space's table */
	uint32_t nr; /* io_events in the ring */
	uint32_t head;
	uint32_t tail;
	uint32_t magic;
	uint32_t compat_features;
	uint32_t incompat_features;
	uint32_t header_length;
};

struct aio_event {
	uint64_t data, obj;
	int64_t res, res2;
};

#define AIO_RING_MAGIC		   0xa10a10a1u
#define AIO_RING_COMPAT_FEATURES   1
#define AIO_RING_INCOMPAT_FEATURES 0
#define RING_HEAD_OFF		   8
#define RING_TAIL_OFF		   12
#define RING_EVENTS_OFF		   sizeof(struct aio_ring_hdr)
/* Linux's cap on a ring (ioctx_alloc's overflow check). */
#define AIO_MAX_RING_EVENTS (0x10000000u / sizeof(struct aio_event))
/* Wait queues one poll request may wait on. */
#define AIO_POLL_WQS 4

struct aio_poll_wait {
	struct waiter w;
	struct waitq *wq;
	struct aio_poll_req *req;
};

struct aio_poll_req {
	struct list_head link; /* in c->polls (c->lock) */
	struct list_head work; /* in the worker's queue (worker.lock) */
	struct aio_ctx *c;     /* referenced */
	struct file *file, *resfd;
	uint64_t obj, data;
	unsigned events;
	unsigned wake_mask; /* the events wake-ups named (atomic) */
	unsigned nwait;
	struct aio_poll_wait waits[AIO_POLL_WQS];
	bool too_many;	 /* its file wanted more than AIO_POLL_WQS queues */
	bool cancelled;	 /* c->lock */
	bool queued;	 /* worker.lock */
	bool submitting; /* worker.lock: io_submit still owns it */
	bool requeue;	 /* worker.lock: woken while submitting */
};

struct aio_ctx {
	int refs;
	pthread_mutex_t lock;
	struct waitq wq; /* io_getevents */
	struct mm *mm;	 /* not referenced: mm_put ends the context first */
	uint64_t ring;	 /* guest address of the ring: the context id */
	uint64_t ring_len;
	unsigned id;	   /* slot in the table, ring->id */
	unsigned nr;	   /* io_events in the ring */
	unsigned max_reqs; /* what io_setup asked for (its share of aio-nr) */
	unsigned tail;	   /* the next slot to fill (the guest's copy is not trusted) */
	unsigned head;	   /* the head last read or written, when the guest's is unreadable */
	unsigned pending;  /* reserved requests not yet in the ring */
	struct list_head polls;
	bool dead;
};

struct aio_table {
	unsigned n;
	struct aio_ctx **ctx;
};

static pthread_mutex_t aio_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long aio_nr_now;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct list_head queue;
	bool running;
} worker = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, LIST_HEAD_INIT(worker.queue),
	    false};

unsigned long aio_nr(void)
{
	unsigned long n;

	pthread_mutex_lock(&aio_lock);
	n = aio_nr_now;
	pthread_mutex_unlock(&aio_lock);
	return n;
}

unsigned long aio_max_nr(void)
{
	return AIO_MAX_NR_DEFAULT;
}

unsigned aio_nr_events(struct aio_ctx *c)
{
	return c->nr;
}

void aio_ctx_put(struct aio_ctx *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void mm_exit(struct mm *mm);

/* Put c in a free slot of mm's table (aio_lock held); its slot number. */
static unsigned table_add(struct mm *mm, struct aio_ctx *c)
{
	struct aio_table *tb = mm->aio;
	unsigned i;

	if (!tb) {
		tb = mm->aio = xzalloc(sizeof(*tb));
		mm_aio_exit = mm_exit;
	}
	for (i = 0; i < tb->n; i++)
		if (!tb->ctx[i])
			break;
	if (i == tb->n) {
		/* Grows by four, as Linux's ioctx_add_table. */
		unsigned n = tb->n ? tb->n * 4 : 1;
		tb->ctx = xrealloc(tb->ctx, n * sizeof(*tb->ctx));
		memset(tb->ctx + tb->n, 0, (n - tb->n) * sizeof(*tb->ctx));
		tb->n = n;
	}
	tb->ctx[i] = c;
	return i;
}

long aio_setup(struct task *t, unsigned nr_events, uint64_t *id)
{
	unsigned max_reqs = nr_events, ncpus = t->k->ncpus ? t->k->ncpus : 1;
	struct aio_ring_hdr hdr = {0};
	struct mmap_req req = {0};
	struct aio_ctx *c;
	uint64_t pages;
	long addr;

	/* Linux's sizing: at least 4 per CPU, doubled for its per-CPU
	 * batches (in 32 bits, as there), then the ring's pages filled. */
	nr_events = MAX(nr_events, ncpus * 4);
	nr_events *= 2;
	if (nr_events > AIO_MAX_RING_EVENTS)
		return -EINVAL;
	if (!nr_events || max_reqs > aio_max_nr())
		return -EAGAIN;
	pages = (RING_EVENTS_OFF + (uint64_t)nr_events * sizeof(struct aio_event) + PAGE_SIZE - 1) /
		PAGE_SIZE;
	req.len = pages * PAGE_SIZE;
	req.prot = PROT_READ | PROT_WRITE;
	req.flags = MAP_PRIVATE | MAP_ANONYMOUS;
	req.vma_flags = VMA_DONTFORK; /* Linux's ring is VM_DONTCOPY */
	addr = mm_mmap(t->mm, &req);
	if (addr < 0)
		return -ENOMEM;

	c = xzalloc(sizeof(*c));
	c->refs = 1; /* the table's */
	pthread_mutex_init(&c->lock, NULL);
	waitq_init(&c->wq);
	list_init(&c->polls);
	c->mm = t->mm;
	c->ring = (uint64_t)addr;
	c->ring_len = req.len;
	c->nr = (unsigned)((req.len - RING_EVENTS_OFF) / sizeof(struct aio_event));
	c->max_reqs = max_reqs;

	pthread_mutex_lock(&aio_lock);
	if (aio_nr_now + max_reqs > aio_max_nr()) {
		pthread_mutex_unlock(&aio_lock);
		mm_munmap(t->mm, c->ring, c->ring_len);
		aio_ctx_put(c);
		return -EAGAIN;
	}
	c->id = table_add(t->mm, c);
	aio_nr_now += max_reqs;
	pthread_mutex_unlock(&aio_lock);

	hdr.id = c->id;
	hdr.nr = c->nr;
	hdr.magic = AIO_RING_MAGIC;
	hdr.compat_features = AIO_RING_COMPAT_FEATURES;
	hdr.incompat_features = AIO_RING_INCOMPAT_FEATURES;
	hdr.header_length = sizeof(hdr);
	mm_copy_out(t->mm, c->ring, &hdr, sizeof(hdr));
	*id = c->ring;
	return 0;
}

struct aio_ctx *aio_lookup(struct task *t, uint64_t id)
{
	struct aio_ctx *c = NULL;
	uint32_t slot;

	if (mm_copy_in(t->mm, &slot, id, sizeof(slot)) < 0)
		return NULL;
	pthread_mutex_lock(&aio_lock);
	if (t->mm->aio && slot < t->mm->aio->n) {
		c = t->mm->aio->ctx[slot];
		if (c && c->ring == id && !c->dead)
			__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
		else
			c = NULL;
	}
	pthread_mutex_unlock(&aio_lock);
	return c;
}

/* --- the ring ------------------------------------------------------------------ */

/* The guest's head, reduced into the ring (c->lock held). */
static unsigned ring_head(struct aio_ctx *c)
{
	uint32_t head;

	if (mm_copy_in(c->mm, &head, c->ring + RING_HEAD_OFF, sizeof(head)) < 0)
		head = c->head;
	return head % c->nr;
}

int aio_reserve(struct aio_ctx *c)
{
	unsigned used;
	int ret = 0;

	pthread_mutex_lock(&c->lock);
	used = (c->tail + c->nr - ring_head(c)) % c->nr;
	/* One slot stays empty, as Linux's reqs_available starts at nr - 1. */
	if (c->dead || used + c->pending >= c->nr - 1)
		ret = -EAGAIN;
	else
		c->pending++;
	pthread_mutex_unlock(&c->lock);
	return ret;
}

void aio_unreserve(struct aio_ctx *c)
{
	pthread_mutex_lock(&c->lock);
	c->pending--;
	pthread_mutex_unlock(&c->lock);
}

/* The event into the ring's tail slot (c->lock held). */
static void ring_put(struct aio_ctx *c, const struct aio_event *ev)
{
	uint32_t tail;

	c->pending--;
	if (c->dead)
		return;
	mm_copy_out(c->mm, c->ring + RING_EVENTS_OFF + (uint64_t)c->tail * sizeof(*ev), ev,
		    sizeof(*ev));
	c->tail = (c->tail + 1) % c->nr;
	tail = c->tail;
	mm_copy_out(c->mm, c->ring + RING_TAIL_OFF, &tail, sizeof(tail));
}

void aio_complete(struct aio_ctx *c, uint64_t obj, uint64_t data, int64_t res, int64_t res2,
		  struct file *resfd)
{
	struct aio_event ev = {data, obj, res, res2};

	pthread_mutex_lock(&c->lock);
	ring_put(c, &ev);
	pthread_mutex_unlock(&c->lock);
	if (resfd)
		eventfd_signal(resfd, 1);
	waitq_wake_all(&c->wq);
}

/* Up to n events from the ring to uevents (Linux's aio_read_events_ring):
 * how many, or -EFAULT (then none is taken). */
static long ring_read(struct aio_ctx *c, uint64_t uevents, long n)
{
	struct aio_event buf[64];
	unsigned head, tail;
	long got = 0;

	pthread_mutex_lock(&c->lock);
	head = ring_head(c);
	tail = c->tail;
	while (got < n && head != tail) {
		unsigned avail = (head <= tail ? tail : c->nr) - head;
		size_t k = MIN(MIN((size_t)avail, (size_t)(n - got)), ARRAY_SIZE(buf));
		size_t len = k * sizeof(buf[0]);
		if (mm_copy_in(c->mm, buf,
			       c->ring + RING_EVENTS_OFF + (uint64_t)head * sizeof(buf[0]),
			       len) < 0 ||
		    mm_copy_out(c->mm, uevents + (uint64_t)got * sizeof(buf[0]), buf, len) < 0) {
			pthread_mutex_unlock(&c->lock);
			return -EFAULT;
		}
		got += (long)k;
		head = (head + (unsigned)k) % c->nr;
	}
	if (got) {
		uint32_t h = head;
		c->head = head;
		mm_copy_out(c->mm, c->ring + RING_HEAD_OFF, &h, sizeof(h));
	}
	pthread_mutex_unlock(&c->lock);
	return got;
}

/* Linux's aio_read_events: more events into *i; true when done. */
static bool read_events(struct aio_ctx *c, long min_nr, long nr, uint64_t uevents, long *i)
{
	long ret = ring_read(c, uevents + (uint64_t)*i * sizeof(struct aio_event), nr - *i);

	if (ret > 0)
		*i += ret;
	if (__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE))
		ret = -EINVAL;
	if (!*i)
		*i = ret;
	return ret < 0 || *i >= min_nr;
}

long aio_getevents(struct task *t, struct aio_ctx *c, long min_nr, long nr, uint64_t uevents,
		   bool nowait, uint64_t deadline)
{
	long got = 0;

	if (nowait) {
		read_events(c, min_nr, nr, uevents, &got);
		return got;
	}
	for (;;) {
		struct waiter w = {0};
		uint32_t snap = waiter_prepare(&c->wq, &w, t);
		int ret;
		if (read_events(c, min_nr, nr, uevents, &got)) {
			waiter_finish(&c->wq, &w);
			break;
		}
		ret = task_block(t, snap, deadline);
		waiter_finish(&c->wq, &w);
		if (ret == -ETIMEDOUT)
			break;
		if (ret == -EINTR) {
			if (!got)
				return -EINTR;
			break;
		}
	}
	return got;
}

/* --- IOCB_CMD_POLL --------------------------------------------------------------- */

static void *worker_main(void *arg);

/* Hand req to the worker (worker.lock held). */
static void worker_queue_locked(struct aio_poll_req *req)
{
	if (req->submitting) {
		req->requeue = true;
		return;
	}
	if (req->queued)
		return;
	req->queued = true;
	list_add_tail(&req->work, &worker.queue);
	pthread_cond_signal(&worker.cond);
}

static void worker_queue(struct aio_poll_req *req)
{
	pthread_mutex_lock(&worker.lock);
	worker_queue_locked(req);
	pthread_mutex_unlock(&worker.lock);
}

/* A wake-up of one of the file's queues (its lock held). */
static bool poll_wake(struct waiter *w, unsigned events)
{
	struct aio_poll_wait *pw = list_entry(w, struct aio_poll_wait, w);

	if (events && !(events & pw->req->events))
		return false;
	/* A wake-up that names its events completes with all of them, as
	 * Linux's aio_poll_wake does; one that does not makes the worker poll. */
	__atomic_or_fetch(&pw->req->wake_mask, events, __ATOMIC_RELAXED);
	worker_queue(pw->req);
	return false;
}

struct aio_poll_table {
	struct poll_table pt;
	struct aio_poll_req *req;
};

static void poll_queue(struct poll_table *pt, struct waitq *wq)
{
	struct aio_poll_req *req = ((struct aio_poll_table *)pt)->req;
	struct aio_poll_wait *pw;

	if (req->nwait == AIO_POLL_WQS) {
		req->too_many = true;
		return;
	}
	pw = &req->waits[req->nwait++];
	pw->wq = wq;
	pw->req = req;
	pw->w.func = poll_wake;
	waitq_add(wq, &pw->w);
}

/* Take req off its file's queues and out of the worker's hands. */
static void poll_unhook(struct aio_poll_req *req)
{
	for (unsigned i = 0; i < req->nwait; i++)
		waiter_finish(req->waits[i].wq, &req->waits[i].w);
	pthread_mutex_lock(&worker.lock);
	if (req->queued) {
		list_del(&req->work);
		req->queued = false;
	}
	req->submitting = false;
	pthread_mutex_unlock(&worker.lock);
}

/* Unhooked req's event into the ring (res: the events, 0 when cancelled), and the end of req. */
static void poll_finish(struct aio_poll_req *req, unsigned mask)
{
	struct aio_ctx *c = req->c;
	struct aio_event ev = {req->data, req->obj, (int64_t)mask, 0};

	pthread_mutex_lock(&c->lock);
	if (!list_empty(&req->link))
		list_del_init(&req->link);
	ring_put(c, &ev);
	pthread_mutex_unlock(&c->lock);
	if (req->resfd) {
		eventfd_signal(req->resfd, 1);
		file_put(req->resfd);
	}
	waitq_wake_all(&c->wq);
	file_put(req->file);
	aio_ctx_put(c);
	free(req);
}

static void worker_start_locked(void)
{
	int ret;

	if (worker.running)
		return;
	ret = thread_start_detached(worker_main, NULL, 256 * 1024);
	if (ret == 0)
		worker.running = true;
	else
		log_warning("aio: cannot start the poll worker: %s", strerror(ret));
}

/* One woken request: complete it when its file is ready or it was
 * cancelled, else leave it waiting for the next wake-up. */
static void worker_run(struct aio_poll_req *req)
{
	unsigned mask = 0;
	bool cancelled;

	pthread_mutex_lock(&req->c->lock);
	cancelled = req->cancelled;
	pthread_mutex_unlock(&req->c->lock);
	if (!cancelled) {
		mask = __atomic_exchange_n(&req->wake_mask, 0, __ATOMIC_RELAXED);
		if (!mask)
			mask = file_poll(req->file, NULL) & req->events;
		if (!mask)
			return;
	}
	poll_unhook(req);
	poll_finish(req, mask);
}

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&worker.lock);
	for (;;) {
		struct aio_poll_req *req;
		while (list_empty(&worker.queue))
			pthread_cond_wait(&worker.cond, &worker.lock);
		req = list_first_entry(&worker.queue, struct aio_poll_req, work);
		list_del(&req->work);
		req->queued = false;
		pthread_mutex_unlock(&worker.lock);
		worker_run(req);
		pthread_mutex_lock(&worker.lock);
	}
	return NULL;
}

int aio_poll_start(struct aio_ctx *c, struct file *f, unsigned events, uint64_t obj, uint64_t data,
		   struct file *resfd)
{
	struct aio_poll_req *req = xzalloc(sizeof(*req));
	struct aio_poll_table apt = {.pt = {.queue = poll_queue, .key = events}, .req = req};
	unsigned mask;

	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	req->c = c;
	req->file = file_get(f);
	req->resfd = resfd ? file_get(resfd) : NULL;
	req->obj = obj;
	req->data = data;
	req->events = events;
	req->submitting = true;
	list_init(&req->work);
	pthread_mutex_lock(&c->lock);
	list_add_tail(&req->link, &c->polls);
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&worker.lock);
	worker_start_locked();
	pthread_mutex_unlock(&worker.lock);

	mask = file_poll(f, &apt.pt) & events;
	if (mask) {
		poll_unhook(req);
		poll_finish(req, mask);
		return 0;
	}
	if (!req->nwait || req->too_many) {
		/* Nothing to wait on: Linux's "no support for IOCB_CMD_POLL". */
		poll_unhook(req);
		pthread_mutex_lock(&c->lock);
		list_del(&req->link);
		c->pending--;
		pthread_mutex_unlock(&c->lock);
		file_put(req->file);
		if (req->resfd)
			file_put(req->resfd);
		aio_ctx_put(c);
		free(req);
		return -EINVAL;
	}
	pthread_mutex_lock(&worker.lock);
	req->submitting = false;
	if (req->requeue)
		worker_queue_locked(req);
	pthread_mutex_unlock(&worker.lock);
	return 0;
}

long aio_cancel(struct aio_ctx *c, uint64_t obj)
{
	struct aio_poll_req *req;
	long ret = -EINVAL;

	pthread_mutex_lock(&c->lock);
	list_for_each_entry(req, &c->polls, link) {
		if (req->obj == obj && !req->cancelled) {
			req->cancelled = true;
			worker_queue(req);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* --- the end of a context -------------------------------------------------------------- */

/* Mark c dead and cancel its polls; unmap: take its ring out of the guest too. */
static long kill_ctx(struct aio_ctx *c, bool unmap)
{
	struct aio_poll_req *req;

	pthread_mutex_lock(&aio_lock);
	if (c->dead) {
		pthread_mutex_unlock(&aio_lock);
		return -EINVAL;
	}
	if (c->mm->aio && c->id < c->mm->aio->n && c->mm->aio->ctx[c->id] == c)
		c->mm->aio->ctx[c->id] = NULL;
	aio_nr_now -= c->max_reqs;
	pthread_mutex_lock(&c->lock);
	__atomic_store_n(&c->dead, true, __ATOMIC_RELEASE);
	list_for_each_entry(req, &c->polls, link) {
		req->cancelled = true;
		worker_queue(req);
	}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_unlock(&aio_lock);
	waitq_wake_all(&c->wq);
	if (unmap)
		mm_munmap(c->mm, c->ring, c->ring_len);
	aio_ctx_put(c); /* the table's reference */
	return 0;
}

long aio_kill(struct aio_ctx *c)
{
	return kill_ctx(c, true);
}

/* mm_put: every context of mm ends with it (no unmapping: it is going). */
static void mm_exit(struct mm *mm)
{
	struct aio_table *tb = mm->aio;

	for (unsigned i = 0; i < tb->n; i++) {
		struct aio_ctx *c;
		pthread_mutex_lock(&aio_lock);
		c = tb->ctx[i];
		if (c)
			__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&aio_lock);
		if (c) {
			kill_ctx(c, false);
			aio_ctx_put(c);
		}
	}
	free(tb->ctx);
	free(tb);
	mm->aio = NULL;
}
