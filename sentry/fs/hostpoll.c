#include "config.h"
#include "sentry/fs/hostpoll.h"
#include "sentry/fs/file.h"
#include "lib/log.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

/* What a guest may wait for on a host descriptor (ERR and HUP always come). */
#define HOST_EVENTS \
	(POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND | POLLWRNORM | POLLWRBAND | POLLRDHUP)

static struct {
	pthread_once_t once;
	pthread_mutex_t lock; /* the registry, every hw's id/armed, epoll_ctl */
	int epfd;	      /* -1: the host gave us none */
	bool running;	      /* the thread has been started */
	struct rb_root byid;
	uint64_t next_id;
} poller = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.epfd = -1,
	.next_id = 1,
};

static void poller_init(void)
{
	poller.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (poller.epfd < 0)
		log_warning("host poller: epoll_create1: %s", strerror(errno));
}

static struct host_waitq *find_locked(uint64_t id)
{
	struct rb_node *n = poller.byid.node;

	while (n) {
		struct host_waitq *hw = rb_entry(n, struct host_waitq, node);
		if (id == hw->id)
			return hw;
		n = id < hw->id ? n->left : n->right;
	}
	return NULL;
}

static void insert_locked(struct host_waitq *hw)
{
	struct rb_node **link = &poller.byid.node, *parent = NULL;

	/* Ids only grow: the new one goes to the far right. */
	while (*link) {
		parent = *link;
		link = &parent->right;
	}
	rb_link(&hw->node, parent, link);
	rb_insert_fixup(&poller.byid, &hw->node);
}

static void unregister_locked(struct host_waitq *hw)
{
	epoll_ctl(poller.epfd, EPOLL_CTL_DEL, hw->fd, NULL);
	rb_erase(&poller.byid, &hw->node);
	hw->id = 0;
	hw->armed = 0;
}

/* The poller thread: host events become wake-ups of the queues. */
static void *poller_main(void *arg)
{
	struct epoll_event evs[64];
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		int n = epoll_wait(poller.epfd, evs, (int)ARRAY_SIZE(evs), -1);
		if (n < 0) {
			if (errno != EINTR)
				log_warning("host poller: epoll_wait: %s", strerror(errno));
			continue;
		}
		pthread_mutex_lock(&poller.lock);
		for (int i = 0; i < n; i++) {
			struct host_waitq *hw = find_locked(evs[i].data.u64);
			if (!hw)
				continue; /* released since the host queued it */
			waitq_wake_events(&hw->wq, evs[i].events & ~EPOLLET);
			if (!hw->permanent && !waitq_active(&hw->wq))
				unregister_locked(hw);
		}
		pthread_mutex_unlock(&poller.lock);
	}
	return NULL;
}

static void start_locked(void)
{
	int ret;

	if (poller.running)
		return;
	ret = thread_start_detached(poller_main, NULL, 256 * 1024);
	if (ret == 0)
		poller.running = true;
	else
		log_warning("host poller: cannot start its thread: %s", strerror(ret));
}

/* Make sure the host reports events (and ERR/HUP) of hw, edge-triggered. */
static int arm_locked(struct host_waitq *hw, unsigned events)
{
	struct epoll_event ev;
	unsigned want = hw->armed | (events & HOST_EVENTS);
	int op = EPOLL_CTL_MOD;

	if (poller.epfd < 0)
		return -ENOSYS;
	if (hw->id && want == hw->armed)
		return 0;
	if (!hw->id) {
		hw->id = poller.next_id++;
		insert_locked(hw);
		op = EPOLL_CTL_ADD;
	}
	ev.events = want | EPOLLET;
	ev.data.u64 = hw->id;
	if (epoll_ctl(poller.epfd, op, hw->fd, &ev) < 0) {
		int err = errno;
		rb_erase(&poller.byid, &hw->node);
		hw->id = 0;
		hw->armed = 0;
		return -err;
	}
	hw->armed = want;
	start_locked();
	return 0;
}

bool hostpoll_can_poll(int fd)
{
	struct epoll_event ev = {.events = 0, .data.u64 = 0};
	bool ok;

	pthread_once(&poller.once, poller_init);
	if (poller.epfd < 0)
		return false;
	pthread_mutex_lock(&poller.lock);
	ok = epoll_ctl(poller.epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
	if (ok)
		epoll_ctl(poller.epfd, EPOLL_CTL_DEL, fd, NULL);
	pthread_mutex_unlock(&poller.lock);
	return ok;
}

void host_waitq_init(struct host_waitq *hw, int fd)
{
	memset(hw, 0, sizeof(*hw));
	hw->fd = fd;
	waitq_init(&hw->wq);
	pthread_once(&poller.once, poller_init);
}

int host_waitq_register(struct host_waitq *hw, unsigned events)
{
	int ret;

	pthread_mutex_lock(&poller.lock);
	hw->permanent = true;
	ret = arm_locked(hw, events);
	pthread_mutex_unlock(&poller.lock);
	return ret;
}

void host_waitq_release(struct host_waitq *hw)
{
	pthread_mutex_lock(&poller.lock);
	if (hw->id)
		unregister_locked(hw);
	pthread_mutex_unlock(&poller.lock);
}

unsigned host_poll_now(int fd)
{
	struct pollfd p = {.fd = fd, .events = HOST_EVENTS};
	struct timespec zero = {0, 0};

	if (ppoll(&p, 1, &zero, NULL) < 0)
		return POLLERR;
	return (unsigned)p.revents;
}

unsigned host_waitq_poll(struct host_waitq *hw, struct poll_table *pt)
{
	if (pt && pt->queue) {
		int ret;
		/* Queue first, then arm, then look: an event in between wakes us. */
		poll_wait(pt, &hw->wq);
		pthread_mutex_lock(&poller.lock);
		ret = arm_locked(hw, pt->key ? pt->key : HOST_EVENTS);
		pthread_mutex_unlock(&poller.lock);
		/* A descriptor the host cannot poll is always ready (Linux's
		 * default for files without a poll operation). */
		if (ret < 0)
			return POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
	}
	return host_poll_now(hw->fd);
}
