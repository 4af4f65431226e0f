#include "config.h"
#include "sentry/fs/epoll.h"
#include "sentry/fs/anon.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/mm.h"
#include "lib/list.h"
#include "lib/rbtree.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>

#ifndef EPOLLEXCLUSIVE
#define EPOLLEXCLUSIVE (1u << 28)
#endif

/* epoll's own bits in an event mask, never reported by a file. */
#define EP_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EPOLLEXCLUSIVE_OK_BITS \
	(EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)
/* Linux's limits: epoll files nest at most 5 deep (4 below the top) ... */
#define EP_MAX_NESTS 4
/* ... and one file may start this many wake-up paths of length 2-5. */
#define PATH_ARR_SIZE 5
static const int path_limits[PATH_ARR_SIZE] = {1000, 500, 100, 50, 10};

struct eventpoll;
struct epitem;

/* The entries watching one file (file->f_ep, while it has any). */
struct epitems_head {
	struct list_head items;		 /* struct epitem.fllink */
	struct epitems_head *check_next; /* on the loop check's list of files */
	bool listed;			 /* (then it outlives its last entry) */
};

/* One entry of an item on a wait queue of its file. */
struct ep_pwq {
	struct waiter w;
	struct waitq *wq;
	struct epitem *epi;
	struct ep_pwq *next;
};

struct epitem {
	struct rb_node rbn;	  /* in ep->rbr, by (file, fd) */
	struct list_head rdllink; /* in ep->rdllist or a scan's list (on_rdl) */
	struct list_head ovflink; /* in ep->ovflist (on_ovf) */
	bool on_rdl, on_ovf;
	struct eventpoll *ep;
	struct file *file; /* not referenced: its last close removes the item */
	int fd;
	uint32_t events; /* what the guest asked for, with EP_PRIVATE_BITS */
	uint64_t data;
	struct ep_pwq *pwqlist;
	struct list_head fllink; /* in file->f_ep->items (under ep_files_lock) */
	bool dying;		 /* the file is being released (under ep_files_lock) */
};

struct eventpoll {
	int refs;		/* the epoll file, and one per item */
	pthread_mutex_t mtx;	/* the interest set; scans */
	pthread_mutex_t lock;	/* rdllist, ovflist, scanning */
	struct waitq wq;	/* epoll_wait callers */
	struct waitq poll_wait; /* poll, select and epolls watching this one */
	struct list_head rdllist;
	struct list_head ovflist; /* made ready while a scan runs */
	bool scanning;
	struct rb_root rbr;
	struct file *file; /* NULL once released (under ep_files_lock) */
	/* The loop check's visit mark and the depth it found (under epmutex). */
	uint64_t gen;
	int loop_check_depth;
};

/* Every file's f_ep list (Linux uses the file's f_lock and RCU). */
static pthread_mutex_t ep_files_lock = PTHREAD_MUTEX_INITIALIZER;
/* Serialises the additions that need the loop and path checks. */
static pthread_mutex_t epmutex = PTHREAD_MUTEX_INITIALIZER;
static uint64_t loop_check_gen; /* under epmutex */
static struct eventpoll *inserting_into;
static struct epitems_head *tfile_check_list;
static int path_count[PATH_ARR_SIZE];

static const struct file_ops epoll_ops;

bool file_is_epoll(struct file *f)
{
	return f->ops == &epoll_ops;
}

/* --- small list helpers -------------------------------------------------- */

/* Move every entry of from to the front of to; from becomes empty. */
static void list_splice_front(struct list_head *from, struct list_head *to)
{
	if (list_empty(from))
		return;
	from->prev->next = to->next;
	to->next->prev = from->prev;
	to->next = from->next;
	from->next->prev = to;
	list_init(from);
}

/* --- reference counts ----------------------------------------------------- */

static void ep_get(struct eventpoll *ep)
{
	__atomic_add_fetch(&ep->refs, 1, __ATOMIC_RELAXED);
}

static void ep_free(struct eventpoll *ep)
{
	pthread_mutex_destroy(&ep->mtx);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}

static bool ep_put_test(struct eventpoll *ep)
{
	return __atomic_sub_fetch(&ep->refs, 1, __ATOMIC_ACQ_REL) == 0;
}

/* --- the interest set --------------------------------------------------------- */

static int ffd_cmp(struct file *f1, int fd1, struct file *f2, int fd2)
{
	if (f1 != f2)
		return (uintptr_t)f1 < (uintptr_t)f2 ? -1 : 1;
	return fd1 < fd2 ? -1 : fd1 > fd2;
}

static struct epitem *ep_find(struct eventpoll *ep, struct file *file, int fd)
{
	struct rb_node *n = ep->rbr.node;

	while (n) {
		struct epitem *epi = rb_entry(n, struct epitem, rbn);
		int c = ffd_cmp(file, fd, epi->file, epi->fd);
		if (c == 0)
			return epi;
		n = c < 0 ? n->left : n->right;
	}
	return NULL;
}

static void ep_rbtree_insert(struct eventpoll *ep, struct epitem *epi)
{
	struct rb_node **link = &ep->rbr.node, *parent = NULL;

	while (*link) {
		struct epitem *e = rb_entry(*link, struct epitem, rbn);
		parent = *link;
		link = ffd_cmp(epi->file, epi->fd, e->file, e->fd) < 0 ? &parent->left
								       : &parent->right;
	}
	rb_link(&epi->rbn, parent, link);
	rb_insert_fixup(&ep->rbr, &epi->rbn);
}

/* --- the ready list ------------------------------------------------------------ */

static bool ep_events_available(struct eventpoll *ep)
{
	bool avail;

	pthread_mutex_lock(&ep->lock);
	avail = !list_empty(&ep->rdllist) || ep->scanning;
	pthread_mutex_unlock(&ep->lock);
	return avail;
}

/* Put epi on the ready list unless it is there (ep->lock held). */
static bool ep_link_locked(struct eventpoll *ep, struct epitem *epi)
{
	if (epi->on_rdl)
		return false;
	list_add_tail(&epi->rdllink, &ep->rdllist);
	epi->on_rdl = true;
	return true;
}

/*
 * A wake-up of a watched file (under the file's wait queue lock). Whether it
 * took the wake-up matters to an EPOLLEXCLUSIVE entry only: as Linux's, it
 * takes it when an epoll_wait caller wakes for it, so that the file's next
 * exclusive entry gets it when this epoll has none.
 */
static bool ep_poll_callback(struct waiter *w, unsigned events)
{
	struct ep_pwq *pwq = container_of(w, struct ep_pwq, w);
	struct epitem *epi = pwq->epi;
	struct eventpoll *ep = epi->ep;
	uint32_t interest = __atomic_load_n(&epi->events, __ATOMIC_ACQUIRE);
	bool took;

	/* A one-shot entry that fired is disarmed until EPOLL_CTL_MOD. */
	if (!(interest & ~EP_PRIVATE_BITS))
		return false;
	/* Wakers that say what happened let us skip what nobody asked for. */
	if (events && !(events & interest))
		return false;
	pthread_mutex_lock(&ep->lock);
	if (ep->scanning) {
		if (!epi->on_ovf) {
			list_add_tail(&epi->ovflink, &ep->ovflist);
			epi->on_ovf = true;
		}
	} else {
		ep_link_locked(ep, epi);
	}
	took = !(interest & EPOLLEXCLUSIVE) || waitq_active(&ep->wq);
	waitq_wake_all(&ep->wq);
	pthread_mutex_unlock(&ep->lock);
	/* Those watching this epoll file, outside the lock (nested epolls). */
	waitq_wake_events(&ep->poll_wait, EPOLLIN);
	return took;
}

/* Take the ready list for a scan; wake-ups meanwhile go to ovflist. */
static void ep_start_scan(struct eventpoll *ep, struct list_head *txlist)
{
	pthread_mutex_lock(&ep->lock);
	list_init(txlist);
	list_splice_front(&ep->rdllist, txlist);
	ep->scanning = true;
	pthread_mutex_unlock(&ep->lock);
}

/* The scan is over: what became ready meanwhile, then what it left, go back. */
static void ep_done_scan(struct eventpoll *ep, struct list_head *txlist)
{
	struct list_head *pos, *prev;

	pthread_mutex_lock(&ep->lock);
	/* Linux's ovflist is LIFO and re-inserted at the front one by one:
	 * the result is FIFO order in front of what the scan put back. */
	for (pos = ep->ovflist.prev; pos != &ep->ovflist; pos = prev) {
		struct epitem *epi = list_entry(pos, struct epitem, ovflink);
		prev = pos->prev;
		list_del(&epi->ovflink);
		epi->on_ovf = false;
		if (!epi->on_rdl) {
			list_add(&epi->rdllink, &ep->rdllist);
			epi->on_rdl = true;
		}
	}
	ep->scanning = false;
	list_splice_front(txlist, &ep->rdllist);
	if (!list_empty(&ep->rdllist))
		waitq_wake_all(&ep->wq);
	pthread_mutex_unlock(&ep->lock);
}

/* --- polling the watched files --------------------------------------------------- */

static unsigned ep_eventpoll_poll(struct file *file, struct poll_table *pt);

/* The events of epi's file that epi asks for (queueing on it with pt). */
static unsigned ep_item_poll(struct epitem *epi, struct poll_table *pt)
{
	struct poll_table nopt = {.queue = NULL};

	if (!pt)
		pt = &nopt;
	pt->key = epi->events;
	return file_poll(epi->file, pt) & epi->events;
}

/* The readiness of an epoll file: POLLIN when an entry really is ready. */
static unsigned ep_eventpoll_poll(struct file *file, struct poll_table *pt)
{
	struct eventpoll *ep = file->priv;
	struct list_head txlist;
	struct epitem *epi, *tmp;
	unsigned res = 0;

	poll_wait(pt, &ep->poll_wait);
	pthread_mutex_lock(&ep->mtx);
	ep_start_scan(ep, &txlist);
	list_for_each_entry_safe(epi, tmp, &txlist, rdllink) {
		if (ep_item_poll(epi, NULL)) {
			res = POLLIN | POLLRDNORM;
			break;
		}
		/* Woken, but not ready for what it asks: drop it. */
		list_del(&epi->rdllink);
		epi->on_rdl = false;
	}
	ep_done_scan(ep, &txlist);
	pthread_mutex_unlock(&ep->mtx);
	return res;
}

/* --- adding and removing entries ------------------------------------------------- */

struct ep_pqueue {
	struct poll_table pt;
	struct epitem *epi;
};

/* ep_insert's poll_table: an entry of epi on each wait queue of its file. */
static void ep_ptable_queue_proc(struct poll_table *pt, struct waitq *wq)
{
	struct ep_pqueue *epq = container_of(pt, struct ep_pqueue, pt);
	struct epitem *epi = epq->epi;
	struct ep_pwq *pwq = xzalloc(sizeof(*pwq));

	pwq->w.func = ep_poll_callback;
	pwq->wq = wq;
	pwq->epi = epi;
	pwq->w.exclusive = epi->events & EPOLLEXCLUSIVE;
	waitq_add(wq, &pwq->w);
	pwq->next = epi->pwqlist;
	epi->pwqlist = pwq;
}

/* Take epi off its file's wait queues; no callback runs for it afterwards. */
static void ep_unregister_pollwait(struct epitem *epi)
{
	struct ep_pwq *pwq;

	while ((pwq = epi->pwqlist)) {
		epi->pwqlist = pwq->next;
		waiter_finish(pwq->wq, &pwq->w);
		free(pwq);
	}
}

/* Link epi to its file's list of watchers. */
static void attach_epitem(struct file *file, struct epitem *epi)
{
	pthread_mutex_lock(&ep_files_lock);
	if (!file->f_ep) {
		struct epitems_head *head = xzalloc(sizeof(*head));
		list_init(&head->items);
		__atomic_store_n(&file->f_ep, head, __ATOMIC_RELEASE);
	}
	list_add_tail(&epi->fllink, &file->f_ep->items);
	pthread_mutex_unlock(&ep_files_lock);
}

/* Unlink epi from its file's list (ep_files_lock held). The last one
 * takes the list off the file (the loop check frees a listed one). */
static void detach_epitem_locked(struct file *file, struct epitem *epi)
{
	struct epitems_head *head = file->f_ep;

	list_del(&epi->fllink);
	if (list_empty(&head->items)) {
		__atomic_store_n(&file->f_ep, NULL, __ATOMIC_RELEASE);
		if (!head->listed)
			free(head);
	}
}

/* Forget epi (ep->mtx held, its waits unregistered). Drops epi's ep reference;
 * returns true when that was the last one. */
static bool ep_remove_epi(struct eventpoll *ep, struct epitem *epi)
{
	rb_erase(&ep->rbr, &epi->rbn);
	pthread_mutex_lock(&ep->lock);
	if (epi->on_rdl)
		list_del(&epi->rdllink);
	if (epi->on_ovf)
		list_del(&epi->ovflink);
	pthread_mutex_unlock(&ep->lock);
	free(epi);
	return ep_put_test(ep);
}

/* Remove epi from ep (ep->mtx held). When its file is being released
 * meanwhile, eventpoll_release_file() finishes the job. */
static void ep_remove(struct eventpoll *ep, struct epitem *epi)
{
	ep_unregister_pollwait(epi);
	pthread_mutex_lock(&ep_files_lock);
	if (epi->dying) {
		pthread_mutex_unlock(&ep_files_lock);
		return;
	}
	detach_epitem_locked(epi->file, epi);
	pthread_mutex_unlock(&ep_files_lock);
	/* The caller holds a reference to ep: this is never the last. */
	ep_remove_epi(ep, epi);
}

void eventpoll_release_file(struct file *file)
{
	for (;;) {
		struct epitem *epi;
		struct eventpoll *ep;
		bool last;

		pthread_mutex_lock(&ep_files_lock);
		if (!file->f_ep || list_empty(&file->f_ep->items)) {
			pthread_mutex_unlock(&ep_files_lock);
			return;
		}
		epi = list_first_entry(&file->f_ep->items, struct epitem, fllink);
		epi->dying = true;
		/* epi holds a reference to ep, and nobody else frees a dying item. */
		ep = epi->ep;
		pthread_mutex_unlock(&ep_files_lock);

		pthread_mutex_lock(&ep->mtx);
		ep_unregister_pollwait(epi);
		pthread_mutex_lock(&ep_files_lock);
		detach_epitem_locked(file, epi);
		pthread_mutex_unlock(&ep_files_lock);
		last = ep_remove_epi(ep, epi);
		pthread_mutex_unlock(&ep->mtx);
		if (last)
			ep_free(ep);
	}
}

/* --- loop and path checks (under epmutex) ------------------------------------------ */

/* Put file on the list of files whose wake-up paths are checked. */
static void list_file(struct file *file)
{
	pthread_mutex_lock(&ep_files_lock);
	if (file->f_ep && !file->f_ep->listed) {
		file->f_ep->listed = true;
		file->f_ep->check_next = tfile_check_list;
		tfile_check_list = file->f_ep;
	}
	pthread_mutex_unlock(&ep_files_lock);
}

static void clear_tfile_check_list(void)
{
	pthread_mutex_lock(&ep_files_lock);
	while (tfile_check_list) {
		struct epitems_head *head = tfile_check_list;
		tfile_check_list = head->check_next;
		head->listed = false;
		head->check_next = NULL;
		/* Its file's last entry left while it was listed. */
		if (list_empty(&head->items))
			free(head);
	}
	pthread_mutex_unlock(&ep_files_lock);
}

/* The depth of the epoll files below ep, or more than EP_MAX_NESTS when
 * they reach inserting_into (a loop) or go too deep. */
static int ep_loop_check_proc(struct eventpoll *ep, int depth)
{
	struct rb_node *n;
	int result = 0;

	if (ep->gen == loop_check_gen)
		return ep->loop_check_depth;
	pthread_mutex_lock(&ep->mtx);
	ep->gen = loop_check_gen;
	for (n = rb_first(&ep->rbr); n; n = rb_next(n)) {
		struct epitem *epi = rb_entry(n, struct epitem, rbn);
		if (file_is_epoll(epi->file)) {
			struct eventpoll *to_visit = epi->file->priv;
			if (to_visit == inserting_into || depth > EP_MAX_NESTS)
				result = EP_MAX_NESTS + 1;
			else
				result = MAX(result, ep_loop_check_proc(to_visit, depth + 1) + 1);
			if (result > EP_MAX_NESTS)
				break;
		} else {
			list_file(epi->file);
		}
	}
	ep->loop_check_depth = result;
	pthread_mutex_unlock(&ep->mtx);
	return result;
}

/* How many epoll files are above ep (ep_files_lock held). */
static int ep_get_upwards_depth_proc(struct eventpoll *ep, int depth)
{
	struct epitem *epi;
	int result = 0;

	if (ep->gen == loop_check_gen)
		return ep->loop_check_depth;
	if (ep->file && ep->file->f_ep)
		list_for_each_entry(epi, &ep->file->f_ep->items, fllink)
			result = MAX(result, ep_get_upwards_depth_proc(epi->ep, depth + 1) + 1);
	ep->gen = loop_check_gen;
	ep->loop_check_depth = result;
	return result;
}

/* May epoll file to go into ep (no loop, at most 5 levels)? 0 or -1. */
static int ep_loop_check(struct eventpoll *ep, struct eventpoll *to)
{
	int depth, upwards;

	inserting_into = ep;
	depth = ep_loop_check_proc(to, 0);
	if (depth > EP_MAX_NESTS)
		return -1;
	pthread_mutex_lock(&ep_files_lock);
	upwards = ep_get_upwards_depth_proc(ep, 0);
	pthread_mutex_unlock(&ep_files_lock);
	return depth + 1 + upwards > EP_MAX_NESTS ? -1 : 0;
}

static int path_count_inc(int nests)
{
	/* Any number of paths of length 1. */
	if (nests == 0)
		return 0;
	if (++path_count[nests] > path_limits[nests])
		return -1;
	return 0;
}

/* Count the wake-up paths up from the entries of refs (ep_files_lock held). */
static int reverse_path_check_proc(struct epitems_head *refs, int depth)
{
	struct epitem *epi;
	int error = 0;

	if (depth > EP_MAX_NESTS)
		return -1;
	list_for_each_entry(epi, &refs->items, fllink) {
		struct epitems_head *up = epi->ep->file ? epi->ep->file->f_ep : NULL;
		if (!up || list_empty(&up->items))
			error = path_count_inc(depth);
		else
			error = reverse_path_check_proc(up, depth + 1);
		if (error)
			break;
	}
	return error;
}

/* Do the listed files start too many wake-up paths? 0 or -1. */
static int reverse_path_check(void)
{
	int error = 0;

	pthread_mutex_lock(&ep_files_lock);
	for (struct epitems_head *p = tfile_check_list; p && !error; p = p->check_next) {
		for (int i = 0; i < PATH_ARR_SIZE; i++)
			path_count[i] = 0;
		error = reverse_path_check_proc(p, 0);
	}
	pthread_mutex_unlock(&ep_files_lock);
	return error;
}

/* --- epoll_ctl ------------------------------------------------------------------------- */

/* Add tfile (open as fd) to ep (ep->mtx held). */
static int ep_insert(struct eventpoll *ep, const struct epoll_uevent *ev, struct file *tfile,
		     int fd, bool full_check)
{
	struct epitem *epi = xzalloc(sizeof(*epi));
	struct ep_pqueue epq;
	unsigned revents;
	bool pwake = false;

	epi->ep = ep;
	epi->file = tfile;
	epi->fd = fd;
	epi->events = ev->events;
	epi->data = ev->data;
	attach_epitem(tfile, epi);
	if (full_check && !file_is_epoll(tfile))
		list_file(tfile);
	ep_rbtree_insert(ep, epi);
	ep_get(ep);

	/* Too many wake-up paths from one file: EINVAL, as Linux says. */
	if (full_check && reverse_path_check()) {
		ep_remove(ep, epi);
		return -EINVAL;
	}

	/* Hook onto the file's queues and see whether it is ready already. */
	epq.pt.queue = ep_ptable_queue_proc;
	epq.pt.key = 0;
	epq.epi = epi;
	revents = ep_item_poll(epi, &epq.pt);

	pthread_mutex_lock(&ep->lock);
	if (revents && ep_link_locked(ep, epi)) {
		waitq_wake_all(&ep->wq);
		pwake = true;
	}
	pthread_mutex_unlock(&ep->lock);
	if (pwake)
		waitq_wake_events(&ep->poll_wait, EPOLLIN);
	return 0;
}

/* New events and data for epi (ep->mtx held); a ready file is an edge. */
static int ep_modify(struct eventpoll *ep, struct epitem *epi, const struct epoll_uevent *ev)
{
	bool pwake = false;

	/* Set the interest before polling, or an event in between is lost. */
	__atomic_store_n(&epi->events, ev->events, __ATOMIC_SEQ_CST);
	epi->data = ev->data;
	if (ep_item_poll(epi, NULL)) {
		pthread_mutex_lock(&ep->lock);
		if (ep_link_locked(ep, epi)) {
			waitq_wake_all(&ep->wq);
			pwake = true;
		}
		pthread_mutex_unlock(&ep->lock);
	}
	if (pwake)
		waitq_wake_events(&ep->poll_wait, EPOLLIN);
	return 0;
}

static bool file_watched(struct file *f)
{
	bool watched;

	pthread_mutex_lock(&ep_files_lock);
	watched = f->f_ep && !list_empty(&f->f_ep->items);
	pthread_mutex_unlock(&ep_files_lock);
	return watched;
}

int epoll_ctl_file(struct file *f, int op, int fd, struct file *tf, struct epoll_uevent *ev)
{
	bool has_event = op != EPOLL_CTL_DEL, full_check = false;
	struct eventpoll *ep;
	struct epitem *epi;
	int error;

	/* The target must support poll. */
	if (!file_can_poll(tf))
		return -EPERM;
	/* Only into an epoll file, and never into itself. */
	if (f == tf || !file_is_epoll(f))
		return -EINVAL;
	/* EPOLLEXCLUSIVE: at ADD only, not on epoll files, few other bits. */
	if (has_event && (ev->events & EPOLLEXCLUSIVE)) {
		if (op == EPOLL_CTL_MOD)
			return -EINVAL;
		if (op == EPOLL_CTL_ADD &&
		    (file_is_epoll(tf) || (ev->events & ~EPOLLEXCLUSIVE_OK_BITS)))
			return -EINVAL;
	}
	ep = f->priv;

	pthread_mutex_lock(&ep->mtx);
	if (op == EPOLL_CTL_ADD && (file_watched(f) || file_is_epoll(tf))) {
		/* A nested set: check for loops and wake-up storms first. */
		pthread_mutex_unlock(&ep->mtx);
		pthread_mutex_lock(&epmutex);
		loop_check_gen++;
		full_check = true;
		if (file_is_epoll(tf) && ep_loop_check(ep, tf->priv) != 0) {
			error = -ELOOP;
			goto out;
		}
		pthread_mutex_lock(&ep->mtx);
	}

	epi = ep_find(ep, tf, fd);
	error = -EINVAL;
	switch (op) {
	case EPOLL_CTL_ADD:
		if (!epi) {
			ev->events |= EPOLLERR | EPOLLHUP;
			error = ep_insert(ep, ev, tf, fd, full_check);
		} else {
			error = -EEXIST;
		}
		break;
	case EPOLL_CTL_DEL:
		if (epi) {
			ep_remove(ep, epi);
			error = 0;
		} else {
			error = -ENOENT;
		}
		break;
	case EPOLL_CTL_MOD:
		if (epi) {
			if (!(epi->events & EPOLLEXCLUSIVE)) {
				ev->events |= EPOLLERR | EPOLLHUP;
				error = ep_modify(ep, epi, ev);
			}
		} else {
			error = -ENOENT;
		}
		break;
	}
	pthread_mutex_unlock(&ep->mtx);
out:
	if (full_check) {
		clear_tfile_check_list();
		loop_check_gen++;
		pthread_mutex_unlock(&epmutex);
	}
	return error;
}

/* --- epoll_wait ------------------------------------------------------------------------ */

/* Copy ready events to the guest: the count, or -EFAULT if none could be. */
static long ep_send_events(struct eventpoll *ep, struct task *t, uint64_t uevents, int maxevents)
{
	struct list_head txlist;
	struct epitem *epi, *tmp;
	long res = 0;

	pthread_mutex_lock(&ep->mtx);
	ep_start_scan(ep, &txlist);
	list_for_each_entry_safe(epi, tmp, &txlist, rdllink) {
		struct epoll_uevent ev;
		unsigned revents;

		if (res >= maxevents)
			break;
		list_del(&epi->rdllink);
		epi->on_rdl = false;
		revents = ep_item_poll(epi, NULL);
		if (!revents)
			continue;
		ev.events = revents;
		ev.data = epi->data;
		if (mm_copy_out(t->mm, uevents + (uint64_t)res * sizeof(ev), &ev, sizeof(ev)) < 0) {
			/* Not lost: it stays first in line. */
			list_add(&epi->rdllink, &txlist);
			epi->on_rdl = true;
			if (!res)
				res = -EFAULT;
			break;
		}
		res++;
		if (epi->events & EPOLLONESHOT) {
			__atomic_store_n(&epi->events, epi->events & EP_PRIVATE_BITS,
					 __ATOMIC_RELEASE);
		} else if (!(epi->events & EPOLLET)) {
			/* Level-triggered: looked at again next time. */
			pthread_mutex_lock(&ep->lock);
			ep_link_locked(ep, epi);
			pthread_mutex_unlock(&ep->lock);
		}
	}
	ep_done_scan(ep, &txlist);
	pthread_mutex_unlock(&ep->mtx);
	return res;
}

long epoll_wait_file(struct task *t, struct file *f, uint64_t uevents, int maxevents,
		     const uint64_t *deadline)
{
	struct eventpoll *ep;
	bool timed_out = deadline && *deadline == 0, interrupted = false, eavail;

	if (!file_is_epoll(f))
		return -EINVAL;
	ep = f->priv;
	eavail = ep_events_available(ep);
	for (;;) {
		/* Exclusive, as Linux's: one event wakes one epoll_wait caller. */
		struct waiter w = {.exclusive = true};
		uint32_t snap;
		long res;

		if (eavail) {
			res = ep_send_events(ep, t, uevents, maxevents);
			if (res)
				return res;
		}
		if (timed_out)
			return 0;
		if (interrupted || task_signal_pending(t))
			return -EINTR;
		snap = waiter_prepare(&ep->wq, &w, t);
		eavail = ep_events_available(ep);
		if (!eavail) {
			int ret = task_block(t, snap, deadline ? *deadline : 0);
			if (ret == -ETIMEDOUT)
				timed_out = true;
			else if (ret == -EINTR)
				interrupted = true;
		}
		waiter_finish(&ep->wq, &w);
		eavail = true;
	}
}

/* --- the epoll file -------------------------------------------------------------------- */

static int64_t ep_llseek(struct file *f, int64_t off, int whence)
{
	return 0; /* noop_llseek: the position stays 0 */
}

/* The epoll file's last close: empty the set, drop the file's reference. */
static void ep_release(struct file *f)
{
	struct eventpoll *ep = f->priv;
	struct rb_node *n, *next;

	pthread_mutex_lock(&ep_files_lock);
	ep->file = NULL;
	pthread_mutex_unlock(&ep_files_lock);
	waitq_wake_all(&ep->poll_wait);
	pthread_mutex_lock(&ep->mtx);
	for (n = rb_first(&ep->rbr); n; n = rb_next(n))
		ep_unregister_pollwait(rb_entry(n, struct epitem, rbn));
	for (n = rb_first(&ep->rbr); n; n = next) {
		next = rb_next(n);
		ep_remove(ep, rb_entry(n, struct epitem, rbn));
	}
	pthread_mutex_unlock(&ep->mtx);
	if (ep_put_test(ep))
		ep_free(ep);
}

/* One line per watched descriptor, in the interest set's order. */
static void ep_show_fdinfo(struct file *f, struct strbuf *o)
{
	struct eventpoll *ep = f->priv;
	struct rb_node *n;

	pthread_mutex_lock(&ep->mtx);
	for (n = rb_first(&ep->rbr); n; n = rb_next(n)) {
		struct epitem *epi = rb_entry(n, struct epitem, rbn);
		struct kstat st = {0};

		if (epi->file->inode)
			inode_stat(epi->file->inode, &st);
		strbuf_printf(o, "tfd: %8d events: %8x data: %16llx  pos:%lli ino:%llx sdev:%x\n",
			      epi->fd, epi->events, (unsigned long long)epi->data,
			      (long long)epi->file->pos, (unsigned long long)st.ino,
			      kdev_of(st.dev));
	}
	pthread_mutex_unlock(&ep->mtx);
}

static const struct file_ops epoll_ops = {
	.show_fdinfo = ep_show_fdinfo,
	.llseek = ep_llseek,
	.poll = ep_eventpoll_poll,
	.release = ep_release,
};

struct file *epoll_file_new(int flags)
{
	struct eventpoll *ep = xzalloc(sizeof(*ep));

	ep->refs = 1;
	pthread_mutex_init(&ep->mtx, NULL);
	pthread_mutex_init(&ep->lock, NULL);
	waitq_init(&ep->wq);
	waitq_init(&ep->poll_wait);
	list_init(&ep->rdllist);
	list_init(&ep->ovflist);
	ep->file = anon_file_new("[eventpoll]", &epoll_ops, O_RDWR | flags, ep);
	return ep->file;
}

const void *epoll_target_id(struct file *f, int tfd, unsigned long toff)
{
	struct eventpoll *ep = f->priv;
	const void *found = NULL;

	pthread_mutex_lock(&ep->mtx);
	for (struct rb_node *n = rb_first(&ep->rbr); n; n = rb_next(n)) {
		struct epitem *epi = rb_entry(n, struct epitem, rbn);
		if (epi->fd == tfd && toff-- == 0) {
			found = epi->file;
			break;
		}
	}
	pthread_mutex_unlock(&ep->mtx);
	return found;
}
