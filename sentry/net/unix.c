/*
 * AF_UNIX sockets, after net/unix/af_unix.c.
 *
 * Objects: a struct unix_sock per socket, reference counted (its file, a
 * peer's pointer, a listener's queue entry, a queued message's sender,
 * a task waiting on it each hold one). Messages (struct unix_msg) sit on
 * the receiver's queue; their size is charged to the sender's send buffer
 * until they are freed, which is what bounds a writer (as sk_wmem_alloc
 * does). A listener's queue holds the not yet accepted server ends.
 *
 * Locking: one mutex per sandbox (unix_net.lock) guards the state of every
 * unix socket, the name table and the queues; nothing blocks or touches
 * guest memory under it. Each socket's iolock serialises its readers (as
 * u->iolock in Linux), so a reader may copy a queued message to the guest
 * without the big lock; taken before the big lock. Files and sockets that
 * messages hold are released only after the lock is dropped (releasing a
 * socket takes it).
 *
 * Not done: MSG_OOB (EOPNOTSUPP), SO_PEEK_OFF, SO_PASSSEC/SO_PEERSEC,
 * SO_PASSPIDFD/SO_PEERPIDFD (ENOPROTOOPT), SIOCOUTQ.
 */
#include "config.h"
#include "sentry/net/unix.h"
#include "sentry/net/socket.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "sentry/mm/memfile.h"
#include "sentry/vfs/vfs.h"
#include "lib/list.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/un.h>
#include <time.h>

#define UNIX_MAX_DGRAM_QLEN 10		/* net.unix.max_dgram_qlen */
#define UNIX_INFLIGHT_MAX   (1ul << 20) /* descriptors in flight per sandbox, even for root */
#define UNIX_MSG_OVERHEAD   576		/* what an skb costs beyond its data */
#define UNIX_STREAM_CHUNK   36544	/* the largest stream skb (SKB_MAX_HEAD(0) + 32 KiB) */
#define SHUTDOWN_MASK	    (SOCK_RCV_SHUTDOWN | SOCK_SEND_SHUTDOWN)
#define SUN_PATH_OFF	    ((int)offsetof(struct sockaddr_un, sun_path))
#define POLL_WAKE_IN	    (POLLIN | POLLRDNORM)
#define POLL_WAKE_OUT	    (POLLOUT | POLLWRNORM | POLLWRBAND)
#define POLL_WAKE_STATE	    (POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLHUP | POLLRDHUP | POLLERR)

enum { US_CLOSE, US_LISTEN, US_ESTABLISHED };

struct unix_net {
	pthread_mutex_t lock;
	struct list_head bound;		 /* every named socket */
	unsigned long inflight;		 /* descriptors in messages */
	struct list_head inflight_socks; /* unix sockets with inflight > 0 */
	unsigned long n_inflight_socks;
	unsigned long releases; /* since the collector last ran */
	/* Every socket, for /proc/net/unix; taken after lock, if both. */
	pthread_mutex_t all_lock;
	struct list_head all;
};

struct unix_addr {
	int refs;
	int len;
	char name[SOCK_ADDR_MAX + 1];
};

struct unix_sock {
	struct socket sock;
	int refs;
	struct unix_net *net;
	int type;
	int state;
	unsigned shutdown; /* SOCK_RCV_SHUTDOWN | SOCK_SEND_SHUTDOWN */
	bool dead;	   /* released */
	bool has_file;	   /* not a server end waiting in a listener's queue */
	int err;	   /* pending error (SO_ERROR) */
	struct unix_sock *peer;
	struct unix_addr *addr;
	struct path path;	    /* the socket file it is bound to */
	bool bsd;		    /* named by a file (dev, ino) rather than abstract */
	uint64_t dev, ino;	    /* of that file */
	struct list_head bind_link; /* in net->bound while named */
	struct list_head all_link;  /* in net->all until freed */
	struct list_head rq;	    /* received messages (listener: connections) */
	unsigned rq_count;
	size_t wmem; /* bytes of this socket's messages still queued */
	int sndbuf, rcvbuf, rcvlowat;
	unsigned backlog;
	bool passcred, reuseaddr, keepalive, broadcast, dontroute, oobinline;
	bool no_check; /* SO_NO_CHECK: kept, meaningless for Unix sockets (as Linux) */
	int linger_onoff, linger_secs;
	int priority;
	uint64_t rcvtimeo, sndtimeo; /* ns, or SOCK_TIMEO_NONE */
	bool peercred_set;
	struct ucred peercred;
	struct waitq wq;	/* readers, writers waiting for buffer, poll */
	struct waitq peer_wait; /* senders waiting for room in this queue */
	pthread_mutex_t iolock;
	struct list_head incoming;	/* datagram sockets connected to this one */
	struct list_head incoming_link; /* in our peer's incoming */
	struct list_head release_link;	/* waiting in a thread's release_pending */
	bool release_embrion;
	/* The collector of unreachable sockets in flight (unix_gc_locked). */
	unsigned long inflight;	  /* messages in queues that hold this socket's file */
	struct list_head gc_link; /* in net->inflight_socks while inflight > 0 */
	struct list_head gc_work; /* on the collector's list of candidates */
	struct list_head gc_scan; /* on its list of sockets to scan */
	long gc_refs;		  /* references from outside the candidates */
	bool gc_candidate, gc_alive;
};

struct unix_msg {
	struct list_head link;
	struct unix_sock *sender; /* referenced; charged truesize */
	struct unix_sock *embryo; /* a listener's entry: the server end (referenced) */
	size_t len, consumed, truesize;
	struct memacct *acct; /* charged its allocation (NULL: nothing charged) */
	bool has_creds;
	struct ucred creds;
	struct scm_fds *fds;
	char data[];
};

static const struct sock_ops unix_stream_ops, unix_dgram_ops, unix_seqpacket_ops;

/* The message after m in u's queue, or NULL. */
static struct unix_msg *next_msg(struct unix_sock *u, struct unix_msg *m)
{
	return m->link.next == &u->rq ? NULL : list_entry(m->link.next, struct unix_msg, link);
}

static struct unix_sock *U(struct socket *s)
{
	return container_of(s, struct unix_sock, sock);
}

/* --- the namespace ---------------------------------------------------------- */

static pthread_mutex_t net_create_lock = PTHREAD_MUTEX_INITIALIZER;

static struct unix_net *unix_net_of(struct task *t)
{
	struct kernel *k = t->k;
	struct unix_net *net;

	pthread_mutex_lock(&net_create_lock);
	if (!k->unix_net) {
		net = xzalloc(sizeof(*net));
		pthread_mutex_init(&net->lock, NULL);
		list_init(&net->bound);
		list_init(&net->inflight_socks);
		pthread_mutex_init(&net->all_lock, NULL);
		list_init(&net->all);
		k->unix_net = net;
	}
	net = k->unix_net;
	pthread_mutex_unlock(&net_create_lock);
	return net;
}

void unix_net_free(struct unix_net *net)
{
	if (!net)
		return;
	pthread_mutex_destroy(&net->lock);
	pthread_mutex_destroy(&net->all_lock);
	free(net);
}

/* --- objects ------------------------------------------------------------------ */

static void addr_put(struct unix_addr *a)
{
	if (a && __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(a);
}

static struct unix_sock *usock_get(struct unix_sock *u)
{
	__atomic_add_fetch(&u->refs, 1, __ATOMIC_RELAXED);
	return u;
}

/* The last reference: the socket was released, nothing points at it. */
static void usock_put(struct unix_sock *u)
{
	if (!u || __atomic_sub_fetch(&u->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_lock(&u->net->all_lock);
	list_del(&u->all_link);
	pthread_mutex_unlock(&u->net->all_lock);
	addr_put(u->addr);
	pthread_mutex_destroy(&u->iolock);
	free(u);
}

static const struct sock_ops *ops_of(int type)
{
	switch (type) {
	case SOCK_STREAM:
		return &unix_stream_ops;
	case SOCK_SEQPACKET:
		return &unix_seqpacket_ops;
	default:
		return &unix_dgram_ops;
	}
}

static struct unix_sock *usock_new(struct unix_net *net, int type)
{
	struct unix_sock *u = xzalloc(sizeof(*u));

	u->sock.ops = ops_of(type);
	u->sock.type = type;
	u->refs = 1;
	u->net = net;
	u->type = type;
	u->state = US_CLOSE;
	u->has_file = true;
	u->sndbuf = SOCK_WMEM_DEFAULT;
	u->rcvbuf = SOCK_RMEM_DEFAULT;
	u->rcvlowat = 1;
	u->backlog = UNIX_MAX_DGRAM_QLEN;
	u->rcvtimeo = u->sndtimeo = SOCK_TIMEO_NONE;
	list_init(&u->bind_link);
	list_init(&u->rq);
	list_init(&u->incoming);
	list_init(&u->incoming_link);
	waitq_init(&u->wq);
	waitq_init(&u->peer_wait);
	pthread_mutex_init(&u->iolock, NULL);
	pthread_mutex_lock(&net->all_lock);
	list_add_tail(&u->all_link, &net->all);
	pthread_mutex_unlock(&net->all_lock);
	return u;
}

void unix_for_each_sock(struct kernel *k, void (*fn)(const struct unix_sock_info *, void *),
			void *arg)
{
	struct unix_net *net;
	struct unix_sock *u;

	pthread_mutex_lock(&net_create_lock);
	net = k->unix_net;
	pthread_mutex_unlock(&net_create_lock);
	if (!net)
		return;
	pthread_mutex_lock(&net->lock);
	pthread_mutex_lock(&net->all_lock);
	list_for_each_entry(u, &net->all, all_link) {
		struct unix_sock_info i = {
			.refs = __atomic_load_n(&u->refs, __ATOMIC_RELAXED),
			.type = u->type,
			.listening = u->state == US_LISTEN,
			.connected = u->state == US_ESTABLISHED,
			.has_file = u->has_file,
			.ino = u->sock.file && u->sock.file->inode ? u->sock.file->inode->ino : 0,
		};
		/* Released sockets are gone from Linux's table; so they are here. */
		if (u->dead)
			continue;
		if (u->addr) {
			i.path = ((const struct sockaddr_un *)u->addr->name)->sun_path;
			i.path_len = MIN(u->addr->len, (int)sizeof(u->addr->name)) - SUN_PATH_OFF;
		}
		fn(&i, arg);
	}
	pthread_mutex_unlock(&net->all_lock);
	pthread_mutex_unlock(&net->lock);
}

/* What SO_PEERCRED reports of t (Linux: tgid, euid, egid). */
static struct ucred peercred_of(struct task *t)
{
	return (struct ucred){.pid = t->tgid, .uid = t->creds.euid, .gid = t->creds.egid};
}

/* What SCM_CREDENTIALS says of t when it did not say it itself. */
static struct ucred scm_creds_of(struct task *t)
{
	return (struct ucred){.pid = t->tgid, .uid = t->creds.uid, .gid = t->creds.gid};
}

/* The unix socket behind f, or NULL. */
static struct unix_sock *unix_of_file(struct file *f)
{
	struct socket *s = socket_from_file(f);

	return s && s->ops->family == AF_UNIX ? container_of(s, struct unix_sock, sock) : NULL;
}

/* Descriptors enter a queue (lock held): count them, and the unix sockets among them. */
static void fds_enter(struct unix_net *net, struct scm_fds *fds)
{
	net->inflight += (unsigned long)fds->count;
	for (int i = 0; i < fds->count; i++) {
		struct unix_sock *x = unix_of_file(fds->files[i]);
		if (x && x->inflight++ == 0) {
			list_add_tail(&x->gc_link, &net->inflight_socks);
			net->n_inflight_socks++;
		}
	}
}

/* Descriptors leave their queue (lock held). */
static void fds_leave(struct unix_net *net, struct scm_fds *fds)
{
	net->inflight -= (unsigned long)fds->count;
	for (int i = 0; i < fds->count; i++) {
		struct unix_sock *x = unix_of_file(fds->files[i]);
		if (x && --x->inflight == 0) {
			list_del(&x->gc_link);
			net->n_inflight_socks--;
		}
	}
}

/*
 * A message leaves a queue (lock held): the sender gets its buffer back.
 * Its wait queue is woken only when that can matter, a writer blocked on a
 * full buffer or a poller waiting to become writable: its readers sleep
 * there too, and a needless wake-up costs a trip across CPUs.
 */
static void msg_uncharge(struct unix_net *net, struct unix_msg *m)
{
	struct unix_sock *s = m->sender;

	if (s) {
		size_t before = s->wmem, limit = (size_t)s->sndbuf;
		s->wmem -= m->truesize;
		if (before >= limit || ((before << 2) > limit && (s->wmem << 2) <= limit))
			waitq_wake_events(&s->wq, POLL_WAKE_OUT);
	}
	if (m->fds)
		fds_leave(net, m->fds);
}

static void unix_release_sock(struct unix_sock *u, bool embrion);

/* Free a message that left its queue (no lock held). */
static void msg_destroy(struct unix_msg *m)
{
	if (!m)
		return;
	scm_fds_put(m->fds);
	if (m->embryo)
		unix_release_sock(m->embryo, true);
	usock_put(m->sender);
	if (m->acct)
		memacct_uncharge(m->acct, sizeof(*m) + m->len);
	free(m);
}

static void msg_destroy_list(struct list_head *l)
{
	struct unix_msg *m, *n;

	list_for_each_entry_safe(m, n, l, link) {
		list_del(&m->link);
		msg_destroy(m);
	}
}

/* Move every queued message of u to out, uncharged (lock held). */
static void purge_queue(struct unix_sock *u, struct list_head *out)
{
	struct unix_msg *m, *n;

	list_for_each_entry_safe(m, n, &u->rq, link) {
		list_del(&m->link);
		msg_uncharge(u->net, m);
		list_add_tail(&m->link, out);
	}
	u->rq_count = 0;
}

static void unhash(struct unix_sock *u)
{
	if (!list_empty(&u->bind_link))
		list_del(&u->bind_link);
}

/*
 * The socket's owner lets go (its file closed, or a listener dropped a
 * connection it never accepted: embrion). As unix_release_sock: the peer
 * of a connected socket sees the end (ECONNRESET if data was left unread),
 * queued messages and the descriptors in them are freed.
 */
static void do_release(struct unix_sock *u, bool embrion)
{
	struct unix_net *net = u->net;
	struct unix_sock *peer, *s, *n;
	struct list_head purge;
	struct path path;

	list_init(&purge);
	pthread_mutex_lock(&net->lock);
	unhash(u);
	u->dead = true;
	u->shutdown = SHUTDOWN_MASK;
	u->state = US_CLOSE;
	path = u->path;
	u->path = (struct path){0};
	peer = u->peer;
	u->peer = NULL;
	if (!list_empty(&u->incoming_link))
		list_del(&u->incoming_link);
	list_for_each_entry_safe(s, n, &u->incoming, incoming_link) {
		list_del(&s->incoming_link);
		waitq_wake_events(&s->wq, POLL_WAKE_OUT | POLLERR);
	}
	waitq_wake_all(&u->peer_wait);
	if (peer && u->type != SOCK_DGRAM) {
		peer->shutdown = SHUTDOWN_MASK;
		if (!list_empty(&u->rq) || embrion)
			peer->err = ECONNRESET;
		waitq_wake_events(&peer->wq, POLL_WAKE_STATE);
	}
	purge_queue(u, &purge);
	pthread_mutex_unlock(&net->lock);
	waitq_wake_all(&u->wq);
	msg_destroy_list(&purge);
	path_put(&path);
	usock_put(peer);
	usock_put(u);
}

/* Call fn(x, arg) for every candidate socket in flight in u's queue, and in
 * the queues of the connections waiting on it when it listens (lock held). */
static void for_each_child(struct unix_sock *u, void (*fn)(struct unix_sock *x, void *arg),
			   void *arg)
{
	struct unix_msg *m, *e;

	list_for_each_entry(m, &u->rq, link) {
		for (int i = 0; m->fds && i < m->fds->count; i++) {
			struct unix_sock *x = unix_of_file(m->fds->files[i]);
			if (x && x->gc_candidate)
				fn(x, arg);
		}
		if (m->embryo)
			list_for_each_entry(e, &m->embryo->rq, link)
				for (int i = 0; e->fds && i < e->fds->count; i++) {
					struct unix_sock *x = unix_of_file(e->fds->files[i]);
					if (x && x->gc_candidate)
						fn(x, arg);
				}
	}
}

static void dec_refs(struct unix_sock *x, void *arg)
{
	x->gc_refs--;
}

static void mark_alive(struct unix_sock *x, void *arg)
{
	struct list_head *work = arg;

	if (!x->gc_alive) {
		x->gc_alive = true;
		list_add_tail(&x->gc_scan, work);
	}
}

/*
 * Linux's unix_gc: sockets whose every reference is a message in some
 * queue, and which no socket outside that set can reach, only keep each
 * other alive (a socket sent over itself, then closed). Their queues are
 * emptied into purge, which frees them. Lock held: nothing can enter or
 * leave a queue meanwhile, and a socket without a descriptor gets no new
 * reference but by being received.
 */
static void unix_gc_locked(struct unix_net *net, struct list_head *purge)
{
	struct unix_sock *u;
	struct list_head cands, work;

	list_init(&cands);
	list_init(&work);
	list_for_each_entry(u, &net->inflight_socks, gc_link) {
		struct file *f = u->sock.file;
		u->gc_candidate = u->gc_alive = false;
		if (f &&
		    (unsigned long)__atomic_load_n(&f->refs, __ATOMIC_SEQ_CST) == u->inflight) {
			u->gc_candidate = true;
			u->gc_refs = (long)u->inflight;
			list_add_tail(&u->gc_work, &cands);
		}
	}
	/* Take away the references candidates hold on each other ... */
	list_for_each_entry(u, &cands, gc_work)
		for_each_child(u, dec_refs, NULL);
	/* ... what is left comes from outside: alive, with all it reaches. */
	list_for_each_entry(u, &cands, gc_work)
		if (u->gc_refs > 0)
			mark_alive(u, &work);
	while (!list_empty(&work)) {
		u = list_first_entry(&work, struct unix_sock, gc_scan);
		list_del(&u->gc_scan);
		for_each_child(u, mark_alive, &work);
	}
	/* The rest is garbage (purging changes inflight_socks: not walked here). */
	list_for_each_entry(u, &cands, gc_work)
		if (!u->gc_alive)
			purge_queue(u, purge);
	list_for_each_entry(u, &cands, gc_work)
		u->gc_candidate = false;
}

/* Sockets whose release was asked for while this thread was releasing
 * another: freeing a queue releases the sockets in flight in it, and so on
 * down a chain as long as the guest made it, so they wait here instead of
 * recursing. */
static __thread struct list_head *release_pending;

static void unix_release_sock(struct unix_sock *u, bool embrion)
{
	struct unix_net *net = u->net;
	struct list_head pending, garbage;
	bool collected = false;

	if (release_pending) {
		u->release_embrion = embrion;
		list_add_tail(&u->release_link, release_pending);
		return;
	}
	list_init(&pending);
	release_pending = &pending;
	do_release(u, embrion);
	for (;;) {
		while (!list_empty(&pending)) {
			u = list_first_entry(&pending, struct unix_sock, release_link);
			list_del(&u->release_link);
			do_release(u, u->release_embrion);
		}
		if (collected)
			break;
		/* A close may have left a cycle only messages hold: collect it.
		 * A collection costs a walk of every socket in flight, so with
		 * many in flight it runs once per a quarter as many releases. */
		collected = true;
		list_init(&garbage);
		pthread_mutex_lock(&net->lock);
		if (net->n_inflight_socks && ++net->releases >= net->n_inflight_socks / 4) {
			net->releases = 0;
			unix_gc_locked(net, &garbage);
		}
		pthread_mutex_unlock(&net->lock);
		msg_destroy_list(&garbage);
	}
	release_pending = NULL;
}

/* --- time and waiting --------------------------------------------------------------- */

/*
 * Sleep on wq until woken (net lock held, dropped while asleep together with
 * iolock when given, and taken again). 0: look again (also when the time
 * ran out: to->none_left is then set), -EAGAIN when there was no time to
 * wait, -ERESTARTSYS or -EINTR when interrupted.
 */
static int unix_wait(struct unix_net *net, struct waitq *wq, struct sock_timeo *to,
		     pthread_mutex_t *iolock)
{
	struct task *t = current_task();
	struct waiter w = {0};
	uint32_t snap;
	int ret;

	if (to->none_left)
		return -EAGAIN;
	if (!t)
		return -EINTR;
	snap = waiter_prepare(wq, &w, t);
	pthread_mutex_unlock(&net->lock);
	if (iolock)
		pthread_mutex_unlock(iolock);
	ret = task_block(t, snap, to->deadline);
	waiter_finish(wq, &w);
	if (iolock)
		pthread_mutex_lock(iolock);
	pthread_mutex_lock(&net->lock);
	return sock_timeo_woken(to, ret);
}

/* --- names -------------------------------------------------------------------------- */

static struct unix_addr *addr_new(const void *name, int len)
{
	struct unix_addr *a = xzalloc(sizeof(*a));

	a->refs = 1;
	a->len = len;
	memcpy(a->name, name, (size_t)len);
	return a;
}

static int validate_addr(const struct sockaddr_un *sun, int len)
{
	if (len <= SUN_PATH_OFF || len > (int)sizeof(*sun))
		return -EINVAL;
	if (sun->sun_family != AF_UNIX)
		return -EINVAL;
	return 0;
}

/* The path of a filesystem name, NUL-terminated (sun_path need not be). */
static void bsd_path(const struct sockaddr_un *sun, int len, char *out)
{
	memcpy(out, sun->sun_path, (size_t)(len - SUN_PATH_OFF));
	out[len - SUN_PATH_OFF] = 0;
}

static struct unix_sock *find_abstract_locked(struct unix_net *net, const void *name, int len,
					      int type)
{
	struct unix_sock *u;

	/* Abstract names are per type, as Linux's hash makes them. */
	list_for_each_entry(u, &net->bound, bind_link)
		if (!u->bsd && u->type == type && u->addr->len == len &&
		    memcmp(u->addr->name, name, (size_t)len) == 0)
			return u;
	return NULL;
}

/* The socket a name refers to, with a reference: Linux's unix_find_other. */
static struct unix_sock *find_other(struct unix_net *net, const struct sockaddr_un *sun, int len,
				    int type, int *err)
{
	struct task *t = current_task();
	struct unix_sock *u, *found = NULL;

	if (sun->sun_path[0]) {
		char path[sizeof(sun->sun_path) + 1];
		struct kstat st;
		struct path p;
		int ret;

		bsd_path(sun, len, path);
		ret = vfs_lookup(t, AT_FDCWD, path, LOOKUP_FOLLOW, &p);
		if (ret) {
			*err = ret;
			return NULL;
		}
		ret = inode_permission(&t->creds, p.dentry->inode, MAY_WRITE);
		inode_stat(p.dentry->inode, &st);
		path_put(&p);
		if (ret) {
			*err = ret;
			return NULL;
		}
		if (!S_ISSOCK(st.mode)) {
			*err = -ECONNREFUSED;
			return NULL;
		}
		pthread_mutex_lock(&net->lock);
		list_for_each_entry(u, &net->bound, bind_link) {
			if (u->bsd && u->dev == st.dev && u->ino == st.ino) {
				found = usock_get(u);
				break;
			}
		}
		pthread_mutex_unlock(&net->lock);
		if (!found) {
			*err = -ECONNREFUSED;
			return NULL;
		}
		if (found->type != type) {
			usock_put(found);
			*err = -EPROTOTYPE;
			return NULL;
		}
		return found;
	}
	pthread_mutex_lock(&net->lock);
	found = find_abstract_locked(net, sun, len, type);
	if (found)
		usock_get(found);
	pthread_mutex_unlock(&net->lock);
	if (!found)
		*err = -ECONNREFUSED;
	return found;
}

/* bind() with an empty address: a free abstract name of 5 hex digits. */
static int unix_autobind(struct unix_sock *u)
{
	struct unix_net *net = u->net;
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int len = SUN_PATH_OFF + 6, ret = -ENOSPC;
	uint32_t order, last;

	if (getrandom(&order, sizeof(order), 0) != sizeof(order))
		order = (uint32_t)monotonic_ns();
	order &= 0xfffff;
	last = order;
	pthread_mutex_lock(&net->lock);
	if (u->addr) {
		pthread_mutex_unlock(&net->lock);
		return 0;
	}
	do {
		char hex[8];
		order = (order + 1) & 0xfffff;
		snprintf(hex, sizeof(hex), "%05x", order);
		memcpy(sun.sun_path + 1, hex, 5);
		if (!find_abstract_locked(net, &sun, len, u->type)) {
			u->addr = addr_new(&sun, len);
			list_add_tail(&u->bind_link, &net->bound);
			ret = 0;
			break;
		}
	} while (order != last);
	pthread_mutex_unlock(&net->lock);
	return ret;
}

static int unix_bind_bsd(struct unix_sock *u, const struct sockaddr_un *sun, int len)
{
	struct unix_net *net = u->net;
	struct task *t = current_task();
	char path[sizeof(sun->sun_path) + 1];
	struct sockaddr_un name = {.sun_family = AF_UNIX};
	struct kstat st;
	struct path p;
	int ret;

	bsd_path(sun, len, path);
	/* Linux's address length: the path, its NUL, and the family. */
	len = SUN_PATH_OFF + (int)strlen(path) + 1;
	memcpy(name.sun_path, path, MIN(strlen(path), sizeof(name.sun_path)));
	ret = vfs_mknod_path(t, AT_FDCWD, path, S_IFSOCK | 0777, &p);
	if (ret)
		return ret == -EEXIST ? -EADDRINUSE : ret;
	inode_stat(p.dentry->inode, &st);
	pthread_mutex_lock(&net->lock);
	if (u->addr) {
		pthread_mutex_unlock(&net->lock);
		path_put(&p);
		vfs_unlink(t, AT_FDCWD, path, false);
		return -EINVAL;
	}
	/* The name may be longer than sockaddr_un (a full sun_path); the
	 * address keeps what fits and reports Linux's length. */
	u->addr = addr_new(&name, MIN(len, (int)sizeof(name)));
	u->addr->len = len;
	u->path = p;
	u->bsd = true;
	u->dev = st.dev;
	u->ino = st.ino;
	list_add_tail(&u->bind_link, &net->bound);
	pthread_mutex_unlock(&net->lock);
	return 0;
}

static int unix_bind(struct socket *s, const void *addr, int len)
{
	const struct sockaddr_un *sun = addr;
	struct unix_sock *u = U(s);
	struct unix_net *net = u->net;
	int ret;

	if (len == SUN_PATH_OFF && sun->sun_family == AF_UNIX)
		return unix_autobind(u);
	ret = validate_addr(sun, len);
	if (ret)
		return ret;
	if (sun->sun_path[0])
		return unix_bind_bsd(u, sun, len);
	pthread_mutex_lock(&net->lock);
	if (u->addr)
		ret = -EINVAL;
	else if (find_abstract_locked(net, sun, len, u->type))
		ret = -EADDRINUSE;
	else {
		u->addr = addr_new(sun, len);
		list_add_tail(&u->bind_link, &net->bound);
	}
	pthread_mutex_unlock(&net->lock);
	return ret;
}

/* The address of u into out (SOCK_ADDR_MAX bytes); its length (lock held).
 * A full 108-byte path reports one byte more than sockaddr_un: a NUL, as
 * Linux's buffer has there. */
static int copy_name(struct unix_sock *u, void *out)
{
	struct sockaddr_un *sun = out;

	memset(out, 0, SOCK_ADDR_MAX);
	if (!u->addr) {
		sun->sun_family = AF_UNIX;
		return SUN_PATH_OFF;
	}
	memcpy(out, u->addr->name, (size_t)MIN(u->addr->len, (int)sizeof(struct sockaddr_un)));
	return u->addr->len;
}

static int unix_getname(struct socket *s, void *addr, bool peer)
{
	struct unix_sock *u = U(s);
	int ret;

	pthread_mutex_lock(&u->net->lock);
	if (peer && !u->peer)
		ret = -ENOTCONN;
	else
		ret = copy_name(peer ? u->peer : u, addr);
	pthread_mutex_unlock(&u->net->lock);
	return ret;
}

/* --- connections ---------------------------------------------------------------------- */

static int unix_listen(struct socket *s, int backlog)
{
	struct unix_sock *u = U(s);
	struct task *t = current_task();
	int ret = 0;

	if (u->type == SOCK_DGRAM)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&u->net->lock);
	if (!u->addr)
		ret = -EINVAL;
	else if (u->state != US_CLOSE && u->state != US_LISTEN)
		ret = -EINVAL;
	else {
		if ((unsigned)backlog > u->backlog)
			waitq_wake_all(&u->peer_wait);
		u->backlog = (unsigned)backlog;
		u->state = US_LISTEN;
		if (t) {
			u->peercred = peercred_of(t);
			u->peercred_set = true;
		}
	}
	pthread_mutex_unlock(&u->net->lock);
	return ret;
}

static bool recvq_full(struct unix_sock *u)
{
	return u->rq_count > u->backlog;
}

static int unix_stream_connect(struct socket *s, const void *addr, int len, bool nonblock)
{
	const struct sockaddr_un *sun = addr;
	struct unix_sock *u = U(s), *newu = NULL, *other = NULL;
	struct unix_net *net = u->net;
	struct task *t = current_task();
	struct unix_msg *m = NULL;
	struct sock_timeo to;
	int err;

	err = validate_addr(sun, len);
	if (err)
		return err;
	if (u->passcred && !u->addr) {
		err = unix_autobind(u);
		if (err)
			return err;
	}
	to = sock_timeo_start(u->sndtimeo, nonblock);
	newu = usock_new(net, u->type);
	newu->has_file = false;
	m = xzalloc(sizeof(*m));
restart:
	other = find_other(net, sun, len, u->type, &err);
	if (!other)
		goto out;
	pthread_mutex_lock(&net->lock);
	if (other->dead) {
		pthread_mutex_unlock(&net->lock);
		usock_put(other);
		goto restart;
	}
	err = -ECONNREFUSED;
	if (other->state != US_LISTEN || (other->shutdown & SOCK_RCV_SHUTDOWN))
		goto out_unlock;
	if (recvq_full(other)) {
		err = unix_wait(net, &other->peer_wait, &to, NULL);
		if (err < 0)
			goto out_unlock;
		pthread_mutex_unlock(&net->lock);
		usock_put(other);
		goto restart;
	}
	if (u->state != US_CLOSE) {
		err = u->state == US_ESTABLISHED ? -EISCONN : -EINVAL;
		goto out_unlock;
	}
	/* The server end: connected to us, named as the listener. */
	newu->peer = usock_get(u);
	newu->state = US_ESTABLISHED;
	if (t) {
		newu->peercred = peercred_of(t);
		newu->peercred_set = true;
	}
	newu->addr = other->addr;
	__atomic_add_fetch(&other->addr->refs, 1, __ATOMIC_RELAXED);
	if (other->path.dentry) {
		newu->path = other->path;
		path_get(&newu->path);
	}
	u->peercred = other->peercred;
	u->peercred_set = other->peercred_set;
	u->state = US_ESTABLISHED;
	u->peer = usock_get(newu);
	m->embryo = newu;
	list_add_tail(&m->link, &other->rq);
	other->rq_count++;
	waitq_wake_events(&other->wq, POLL_WAKE_IN);
	pthread_mutex_unlock(&net->lock);
	usock_put(other);
	return 0;

out_unlock:
	pthread_mutex_unlock(&net->lock);
out:
	free(m);
	unix_release_sock(newu, false);
	usock_put(other);
	return err;
}

/* A datagram socket's receive queue is emptied when it changes peers (so a
 * connected socket only holds its peer's messages). */
static void dgram_disconnected(struct unix_sock *u, struct unix_sock *old, struct list_head *purge)
{
	if (list_empty(&u->rq))
		return;
	purge_queue(u, purge);
	waitq_wake_all(&u->peer_wait);
	if (!old->dead && old->peer == u) {
		old->err = ECONNRESET;
		waitq_wake_events(&old->wq, POLLERR);
	}
}

/* Set u's datagram peer to other (referenced by the caller, or NULL); lock held. */
static void dgram_set_peer(struct unix_sock *u, struct unix_sock *other, struct list_head *purge,
			   struct unix_sock **drop)
{
	struct unix_sock *old = u->peer;

	if (!list_empty(&u->incoming_link))
		list_del(&u->incoming_link);
	u->peer = other;
	if (other)
		list_add_tail(&u->incoming_link, &other->incoming);
	*drop = old;
	if (!old)
		return;
	if (!other)
		u->state = US_CLOSE;
	if (other != old) {
		dgram_disconnected(u, old, purge);
		if (!old->peer)
			old->state = US_CLOSE;
	}
}

static int unix_dgram_connect(struct socket *s, const void *addr, int len, bool nonblock)
{
	const struct sockaddr_un *sun = addr;
	struct unix_sock *u = U(s), *other = NULL, *old = NULL;
	struct unix_net *net = u->net;
	struct list_head purge;
	int err;

	if (len < (int)sizeof(sa_family_t))
		return -EINVAL;
	list_init(&purge);
	if (sun->sun_family != AF_UNSPEC) {
		err = validate_addr(sun, len);
		if (err)
			return err;
		if (u->passcred && !u->addr) {
			err = unix_autobind(u);
			if (err)
				return err;
		}
		other = find_other(net, sun, len, u->type, &err);
		if (!other)
			return err;
	}
	pthread_mutex_lock(&u->iolock);
	pthread_mutex_lock(&net->lock);
	if (other) {
		if (other->dead) {
			err = -ECONNREFUSED;
			goto out_unlock;
		}
		if (other->peer && other->peer != u) {
			err = -EPERM;
			goto out_unlock;
		}
		u->state = US_ESTABLISHED;
		other->state = US_ESTABLISHED;
	}
	dgram_set_peer(u, other, &purge, &old);
	pthread_mutex_unlock(&net->lock);
	pthread_mutex_unlock(&u->iolock);
	msg_destroy_list(&purge);
	usock_put(old);
	return 0;

out_unlock:
	pthread_mutex_unlock(&net->lock);
	pthread_mutex_unlock(&u->iolock);
	usock_put(other);
	return err;
}

static int unix_accept(struct socket *s, bool nonblock, struct socket **out)
{
	struct unix_sock *u = U(s), *newu;
	struct unix_net *net = u->net;
	struct unix_msg *m = NULL;
	struct sock_timeo to;
	int err = 0;

	if (u->type == SOCK_DGRAM)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&net->lock);
	if (u->state != US_LISTEN) {
		pthread_mutex_unlock(&net->lock);
		return -EINVAL;
	}
	to = sock_timeo_start(u->rcvtimeo, nonblock);
	while (list_empty(&u->rq)) {
		if (u->shutdown & SOCK_RCV_SHUTDOWN)
			err = -EINVAL;
		else
			err = unix_wait(net, &u->wq, &to, NULL);
		if (err) {
			pthread_mutex_unlock(&net->lock);
			return err;
		}
	}
	m = list_first_entry(&u->rq, struct unix_msg, link);
	list_del(&m->link);
	u->rq_count--;
	newu = m->embryo;
	newu->has_file = true;
	if (u->passcred)
		newu->passcred = true;
	waitq_wake_events(&u->peer_wait, POLL_WAKE_OUT);
	pthread_mutex_unlock(&net->lock);
	free(m);
	*out = &newu->sock;
	return 0;
}

static int unix_shutdown(struct socket *s, int how)
{
	struct unix_sock *u = U(s), *other;
	unsigned mode;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	mode = (unsigned)how + 1;
	pthread_mutex_lock(&u->net->lock);
	u->shutdown |= mode;
	waitq_wake_events(&u->wq, POLL_WAKE_STATE);
	other = u->peer;
	if (other && u->type != SOCK_DGRAM) {
		unsigned peer_mode = 0;
		if (mode & SOCK_RCV_SHUTDOWN)
			peer_mode |= SOCK_SEND_SHUTDOWN;
		if (mode & SOCK_SEND_SHUTDOWN)
			peer_mode |= SOCK_RCV_SHUTDOWN;
		other->shutdown |= peer_mode;
		waitq_wake_events(&other->wq, POLL_WAKE_STATE);
	}
	pthread_mutex_unlock(&u->net->lock);
	return 0;
}

/* --- sending ------------------------------------------------------------------------------ */

/* A pending error, cleared as it is reported (lock held). */
static int take_error(struct unix_sock *u)
{
	int e = u->err;

	u->err = 0;
	return -e;
}

/*
 * Room in u's send buffer for a message of truesize (lock held), charged
 * to u: Linux's sock_alloc_send_pskb. Waits unless to says not to.
 */
static int wait_for_wmem(struct unix_sock *u, size_t truesize, struct sock_timeo *to)
{
	for (;;) {
		int err;
		if (u->err)
			return take_error(u);
		if (u->shutdown & SOCK_SEND_SHUTDOWN)
			return -EPIPE;
		if (u->wmem < (size_t)u->sndbuf) {
			u->wmem += truesize;
			return 0;
		}
		err = unix_wait(u->net, &u->wq, to, NULL);
		if (err)
			return err;
	}
}

/* A message of len bytes copied in from the sender's iterator. */
/* A message of len bytes copied in from the sender's iterator, charged to
 * the sandbox's memory account (ENOBUFS when it has no room). */
static struct unix_msg *msg_new(struct sock_msg *msg, size_t len, int *err)
{
	struct memacct *acct = msg->t ? &msg->t->k->mf->acct : NULL;
	struct unix_msg *m;
	bool fault;

	if (acct && memacct_charge(acct, sizeof(*m) + len) < 0) {
		*err = -ENOBUFS;
		return NULL;
	}
	m = malloc(sizeof(*m) + len);
	if (!m) {
		if (acct)
			memacct_uncharge(acct, sizeof(*m) + len);
		*err = -ENOMEM;
		return NULL;
	}
	memset(m, 0, sizeof(*m));
	m->len = len;
	m->acct = acct;
	if (msg_iter_copy_in(&msg->iter, m->data, len, &fault) != len) {
		if (acct)
			memacct_uncharge(acct, sizeof(*m) + len);
		free(m);
		*err = -EFAULT;
		return NULL;
	}
	return m;
}

static size_t msg_truesize(size_t len, const struct scm_fds *fds)
{
	return len + UNIX_MSG_OVERHEAD + (fds ? (size_t)fds->count * sizeof(void *) : 0);
}

/* Credentials for the message: given by the sender, or added when either
 * end asked for them (Linux's maybe_add_creds); lock held. */
static void add_creds(struct unix_msg *m, struct sock_msg *msg, struct unix_sock *u,
		      struct unix_sock *other)
{
	if (msg->scm.creds_set) {
		m->has_creds = true;
		m->creds = msg->scm.creds;
	} else if (u->passcred || !other->has_file || other->passcred) {
		m->has_creds = true;
		m->creds = scm_creds_of(msg->t);
	}
}

/* May u send to other (other is connected to nobody else)? */
static bool may_send(struct unix_sock *u, struct unix_sock *other)
{
	return !other->peer || other->peer == u;
}

/* Descriptors in flight beyond RLIMIT_NOFILE need a capability (ETOOMANYREFS). */
static int check_inflight(struct unix_net *net, struct sock_msg *msg)
{
	struct task *t = msg->t;

	if (!msg->scm.fds || !t)
		return 0;
	/* Beyond Linux: a bound for root too, since every socket in flight
	 * costs the sentry memory that no file descriptor limit counts. */
	if (net->inflight + (unsigned long)msg->scm.fds->count > UNIX_INFLIGHT_MAX)
		return -ETOOMANYREFS;
	if (net->inflight > t->tg->rlim[RLIMIT_NOFILE].rlim_cur &&
	    !creds_capable(&t->creds, KCAP_SYS_RESOURCE) &&
	    !creds_capable(&t->creds, KCAP_SYS_ADMIN))
		return -ETOOMANYREFS;
	return 0;
}

static long unix_dgram_sendmsg(struct socket *s, struct sock_msg *msg)
{
	const struct sockaddr_un *sun = msg->namelen ? msg->name : NULL;
	struct unix_sock *u = U(s), *other = NULL, *old = NULL;
	struct unix_net *net = u->net;
	size_t len = msg->iter.count, truesize;
	struct unix_msg *m = NULL;
	struct list_head purge;
	struct sock_timeo to;
	int err;

	list_init(&purge);
	if (msg->flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (sun) {
		err = validate_addr(sun, msg->namelen);
		if (err)
			return err;
	} else {
		pthread_mutex_lock(&net->lock);
		other = u->peer ? usock_get(u->peer) : NULL;
		pthread_mutex_unlock(&net->lock);
		if (!other)
			return -ENOTCONN;
	}
	if (u->passcred && !u->addr) {
		err = unix_autobind(u);
		if (err)
			goto out;
	}
	err = -EMSGSIZE;
	if (len > (size_t)u->sndbuf - 32)
		goto out;
	to = sock_timeo_start(u->sndtimeo, msg->flags & MSG_DONTWAIT);
	truesize = msg_truesize(len, msg->scm.fds);
	pthread_mutex_lock(&net->lock);
	err = check_inflight(net, msg);
	if (!err)
		err = wait_for_wmem(u, truesize, &to);
	pthread_mutex_unlock(&net->lock);
	if (err)
		goto out;
	m = msg_new(msg, len, &err);
	if (!m)
		goto out_uncharge;
	m->truesize = truesize;
	m->sender = usock_get(u);
	to = sock_timeo_start(u->sndtimeo, msg->flags & MSG_DONTWAIT);
restart:
	if (!other) {
		err = -ECONNRESET;
		if (!sun)
			goto out_free;
		other = find_other(net, sun, msg->namelen, u->type, &err);
		if (!other)
			goto out_free;
	}
	pthread_mutex_lock(&net->lock);
	err = -EPERM;
	if (!may_send(u, other))
		goto out_unlock;
	if (other->dead) {
		err = 0;
		if (u->type == SOCK_SEQPACKET) {
			err = -EPIPE;
		} else if (u->peer == other) {
			/* Our peer is gone: we are disconnected. */
			pthread_mutex_unlock(&net->lock);
			pthread_mutex_lock(&u->iolock);
			pthread_mutex_lock(&net->lock);
			if (u->peer == other) {
				dgram_set_peer(u, NULL, &purge, &old);
				u->state = US_CLOSE;
			}
			pthread_mutex_unlock(&net->lock);
			pthread_mutex_unlock(&u->iolock);
			msg_destroy_list(&purge);
			usock_put(old);
			usock_put(other);
			other = NULL;
			err = -ECONNREFUSED;
			goto out_free;
		}
		pthread_mutex_unlock(&net->lock);
		usock_put(other);
		other = NULL;
		if (err)
			goto out_free;
		goto restart;
	}
	err = -EPIPE;
	if (other->shutdown & SOCK_RCV_SHUTDOWN)
		goto out_unlock;
	if (other != u && other->peer != u && other->rq_count > UNIX_MAX_DGRAM_QLEN) {
		err = unix_wait(net, &other->peer_wait, &to, NULL);
		if (err)
			goto out_unlock;
		pthread_mutex_unlock(&net->lock);
		goto restart;
	}
	add_creds(m, msg, u, other);
	m->fds = msg->scm.fds;
	msg->scm.fds = NULL;
	if (m->fds)
		fds_enter(net, m->fds);
	list_add_tail(&m->link, &other->rq);
	other->rq_count++;
	waitq_wake_events(&other->wq, POLL_WAKE_IN);
	pthread_mutex_unlock(&net->lock);
	usock_put(other);
	return (long)len;

out_unlock:
	pthread_mutex_unlock(&net->lock);
out_free:
	/* The message was never queued: give the buffer back. */
	pthread_mutex_lock(&net->lock);
	msg_uncharge(net, m);
	pthread_mutex_unlock(&net->lock);
	msg_destroy(m);
	goto out;
out_uncharge:
	pthread_mutex_lock(&net->lock);
	u->wmem -= truesize;
	waitq_wake_events(&u->wq, POLL_WAKE_OUT);
	pthread_mutex_unlock(&net->lock);
out:
	usock_put(other);
	return err;
}

static long unix_seqpacket_sendmsg(struct socket *s, struct sock_msg *msg)
{
	struct unix_sock *u = U(s);
	int err, state;

	pthread_mutex_lock(&u->net->lock);
	err = take_error(u);
	state = u->state;
	pthread_mutex_unlock(&u->net->lock);
	if (err)
		return err;
	if (state != US_ESTABLISHED)
		return -ENOTCONN;
	msg->namelen = 0;
	return unix_dgram_sendmsg(s, msg);
}

static long unix_stream_sendmsg(struct socket *s, struct sock_msg *msg)
{
	struct unix_sock *u = U(s), *other;
	struct unix_net *net = u->net;
	size_t len = msg->iter.count, sent = 0;
	bool fds_sent = false;
	struct sock_timeo to;
	int err;

	if (msg->flags & MSG_OOB)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&net->lock);
	if (msg->namelen) {
		err = u->state == US_ESTABLISHED ? -EISCONN : -EOPNOTSUPP;
		pthread_mutex_unlock(&net->lock);
		return err;
	}
	other = u->peer ? usock_get(u->peer) : NULL;
	if (!other) {
		pthread_mutex_unlock(&net->lock);
		return -ENOTCONN;
	}
	if (u->shutdown & SOCK_SEND_SHUTDOWN) {
		pthread_mutex_unlock(&net->lock);
		goto pipe_err;
	}
	err = check_inflight(net, msg);
	pthread_mutex_unlock(&net->lock);
	if (err)
		goto out_err;
	to = sock_timeo_start(u->sndtimeo, msg->flags & MSG_DONTWAIT);
	while (sent < len) {
		size_t size = MIN(len - sent, (size_t)(u->sndbuf >> 1) - 64);
		struct scm_fds *fds = fds_sent ? NULL : msg->scm.fds;
		size_t truesize;
		struct unix_msg *m;

		size = MIN(size, (size_t)UNIX_STREAM_CHUNK);
		truesize = msg_truesize(size, fds);
		pthread_mutex_lock(&net->lock);
		err = wait_for_wmem(u, truesize, &to);
		pthread_mutex_unlock(&net->lock);
		if (err)
			goto out_err;
		m = msg_new(msg, size, &err);
		pthread_mutex_lock(&net->lock);
		if (!m) {
			u->wmem -= truesize;
			pthread_mutex_unlock(&net->lock);
			goto out_err;
		}
		m->truesize = truesize;
		m->sender = usock_get(u);
		if (other->dead || (other->shutdown & SOCK_RCV_SHUTDOWN)) {
			msg_uncharge(net, m);
			pthread_mutex_unlock(&net->lock);
			msg_destroy(m);
			goto pipe_err;
		}
		add_creds(m, msg, u, other);
		if (fds) {
			m->fds = fds;
			msg->scm.fds = NULL;
			fds_enter(net, fds);
		}
		fds_sent = true;
		list_add_tail(&m->link, &other->rq);
		other->rq_count++;
		waitq_wake_events(&other->wq, POLL_WAKE_IN);
		pthread_mutex_unlock(&net->lock);
		sent += size;
	}
	usock_put(other);
	return (long)sent;

pipe_err:
	if (sent == 0)
		sock_sigpipe(msg);
	err = -EPIPE;
out_err:
	usock_put(other);
	return sent ? (long)sent : err;
}

/* --- receiving ------------------------------------------------------------------------------ */

/* The sender's name for recvfrom (lock held). */
static void copy_source(struct sock_msg *msg, struct unix_msg *m)
{
	if (msg->name_out && m->sender && m->sender->addr)
		msg->namelen_out = copy_name(m->sender, msg->name_out);
}

static void set_scm_creds(struct scm *scm, const struct unix_msg *m)
{
	scm->creds_set = true;
	if (m->has_creds) {
		scm->creds = m->creds;
	} else {
		/* No credentials were attached: Linux reports no pid and the overflow ids. */
		scm->creds = (struct ucred){.pid = 0, .uid = 65534, .gid = 65534};
	}
}

/* Room was made in u's queue: senders waiting for it, and the datagram
 * sockets connected to u that poll for POLLOUT (lock held). Only a queue
 * that was over the limit can have any. */
static void wake_senders(struct unix_sock *u)
{
	struct unix_sock *s;

	if (u->rq_count + 1 <= UNIX_MAX_DGRAM_QLEN)
		return;
	waitq_wake_events(&u->peer_wait, POLL_WAKE_OUT);
	list_for_each_entry(s, &u->incoming, incoming_link)
		waitq_wake_events(&s->wq, POLL_WAKE_OUT);
}

static long unix_dgram_recvmsg(struct socket *s, struct sock_msg *msg)
{
	struct unix_sock *u = U(s);
	struct unix_net *net = u->net;
	int flags = msg->flags;
	struct unix_msg *m = NULL;
	size_t size = msg->iter.count;
	struct sock_timeo to;
	long err;
	bool fault;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	to = sock_timeo_start(u->rcvtimeo, flags & MSG_DONTWAIT);
	pthread_mutex_lock(&u->iolock);
	pthread_mutex_lock(&net->lock);
	for (;;) {
		/* As __skb_try_recv_datagram: a pending error comes first. */
		err = take_error(u);
		if (!err && !list_empty(&u->rq)) {
			m = list_first_entry(&u->rq, struct unix_msg, link);
			if (!(flags & MSG_PEEK)) {
				list_del(&m->link);
				u->rq_count--;
				msg_uncharge(net, m);
				wake_senders(u);
			}
			break;
		}
		if (!err && to.none_left) {
			err = -EAGAIN;
			if (u->type == SOCK_SEQPACKET && (u->shutdown & SOCK_RCV_SHUTDOWN))
				err = 0;
		} else if (!err && (u->shutdown & SOCK_RCV_SHUTDOWN)) {
			err = 0;
		} else if (!err) {
			err = unix_wait(net, &u->wq, &to, &u->iolock);
			if (err == 0)
				continue;
		}
		pthread_mutex_unlock(&net->lock);
		pthread_mutex_unlock(&u->iolock);
		return err;
	}
	copy_source(msg, m);
	pthread_mutex_unlock(&net->lock);
	if (size > m->len)
		size = m->len;
	else if (size < m->len)
		msg->out_flags |= MSG_TRUNC;
	if (msg_iter_copy_out(&msg->iter, m->data, size, &fault) != size) {
		err = -EFAULT;
	} else {
		set_scm_creds(&msg->scm, m);
		msg->scm.passcred = u->passcred;
		if (flags & MSG_PEEK) {
			msg->scm.fds = scm_fds_dup(m->fds);
		} else {
			msg->scm.fds = m->fds;
			m->fds = NULL;
		}
		err = (flags & MSG_TRUNC) ? (long)m->len : (long)size;
	}
	pthread_mutex_unlock(&u->iolock);
	if (!(flags & MSG_PEEK))
		msg_destroy(m);
	return err;
}

static long unix_seqpacket_recvmsg(struct socket *s, struct sock_msg *msg)
{
	struct unix_sock *u = U(s);
	int state;

	pthread_mutex_lock(&u->net->lock);
	state = u->state;
	pthread_mutex_unlock(&u->net->lock);
	if (state != US_ESTABLISHED)
		return -ENOTCONN;
	return unix_dgram_recvmsg(s, msg);
}

static bool creds_equal(const struct scm *scm, const struct unix_msg *m)
{
	struct scm tmp = {0};

	set_scm_creds(&tmp, m);
	return tmp.creds.pid == scm->creds.pid && tmp.creds.uid == scm->creds.uid &&
	       tmp.creds.gid == scm->creds.gid;
}

/* Linux's unix_stream_read_generic: writes coalesce, up to the size asked,
 * stopping at a change of credentials (SO_PASSCRED) or descriptors. */
static long unix_stream_recvmsg(struct socket *s, struct sock_msg *msg)
{
	struct unix_sock *u = U(s);
	struct unix_net *net = u->net;
	int flags = msg->flags;
	size_t size = msg->iter.count, copied = 0, target, skip = 0;
	bool check_creds = false, named = false;
	struct unix_msg *m, *cursor = NULL;
	struct list_head done;
	struct sock_timeo to;
	long err = 0;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	list_init(&done);
	pthread_mutex_lock(&net->lock);
	if (u->state != US_ESTABLISHED) {
		pthread_mutex_unlock(&net->lock);
		return -EINVAL;
	}
	pthread_mutex_unlock(&net->lock);
	target = (flags & MSG_WAITALL) ? size : MIN(size, (size_t)u->rcvlowat);
	if (target == 0)
		target = 1;
	to = sock_timeo_start(u->rcvtimeo, flags & MSG_DONTWAIT);
	pthread_mutex_lock(&u->iolock);
	do {
		size_t chunk, avail;
		bool fault;

		pthread_mutex_lock(&net->lock);
		/* The next message: the head, or (peeking) the one after the last seen. */
		if (cursor)
			m = next_msg(u, cursor);
		else
			m = list_empty(&u->rq) ? NULL
					       : list_first_entry(&u->rq, struct unix_msg, link);
		if (!m) {
			if (copied >= target) {
				pthread_mutex_unlock(&net->lock);
				break;
			}
			err = take_error(u);
			if (err || (u->shutdown & SOCK_RCV_SHUTDOWN)) {
				pthread_mutex_unlock(&net->lock);
				break;
			}
			err = unix_wait(net, &u->wq, &to, &u->iolock);
			pthread_mutex_unlock(&net->lock);
			if (err)
				break;
			continue;
		}
		if (check_creds) {
			if (!creds_equal(&msg->scm, m)) {
				pthread_mutex_unlock(&net->lock);
				break;
			}
		} else if (u->passcred) {
			set_scm_creds(&msg->scm, m);
			check_creds = true;
		}
		if (!named) {
			copy_source(msg, m);
			named = true;
		}
		avail = m->len - m->consumed - skip;
		pthread_mutex_unlock(&net->lock);

		chunk = MIN(avail, size - copied);
		if (msg_iter_copy_out(&msg->iter, m->data + m->consumed + skip, chunk, &fault) !=
		    chunk) {
			if (copied == 0)
				err = -EFAULT;
			break;
		}
		copied += chunk;
		pthread_mutex_lock(&net->lock);
		if (!(flags & MSG_PEEK)) {
			m->consumed += chunk;
			if (m->fds) {
				msg->scm.fds = m->fds;
				m->fds = NULL;
				fds_leave(net, msg->scm.fds);
			}
			if (m->consumed < m->len) {
				pthread_mutex_unlock(&net->lock);
				break;
			}
			list_del(&m->link);
			u->rq_count--;
			msg_uncharge(net, m);
			list_add_tail(&m->link, &done);
			pthread_mutex_unlock(&net->lock);
			if (msg->scm.fds)
				break;
		} else {
			bool had_fds = m->fds != NULL;
			if (had_fds)
				msg->scm.fds = scm_fds_dup(m->fds);
			pthread_mutex_unlock(&net->lock);
			if (had_fds)
				break;
			skip = 0;
			cursor = m;
			/* Peeking reads ahead only through what is there. */
			pthread_mutex_lock(&net->lock);
			m = next_msg(u, cursor);
			pthread_mutex_unlock(&net->lock);
			if (!m)
				break;
		}
	} while (copied < size);
	pthread_mutex_unlock(&u->iolock);
	msg->scm.passcred = u->passcred;
	msg_destroy_list(&done);
	if (copied)
		return (long)copied;
	return err;
}

/* --- poll, FIONREAD, options -------------------------------------------------------------------- */

static bool writable(struct unix_sock *u)
{
	return u->state != US_LISTEN && (u->wmem << 2) <= (size_t)u->sndbuf;
}

static unsigned unix_poll(struct socket *s, struct poll_table *pt)
{
	struct unix_sock *u = U(s);
	unsigned mask = 0;

	poll_wait(pt, &u->wq);
	pthread_mutex_lock(&u->net->lock);
	if (u->err)
		mask |= POLLERR;
	if (u->shutdown == SHUTDOWN_MASK)
		mask |= POLLHUP;
	if (u->shutdown & SOCK_RCV_SHUTDOWN)
		mask |= POLLRDHUP | POLLIN | POLLRDNORM;
	if (!list_empty(&u->rq))
		mask |= POLLIN | POLLRDNORM;
	if (u->type != SOCK_DGRAM && u->state == US_CLOSE)
		mask |= POLLHUP;
	if (writable(u)) {
		struct unix_sock *other = u->peer;
		/* A datagram socket whose peer's queue is full (and who does
		 * not read from us) waits for room there. */
		if (!(u->type == SOCK_DGRAM && other && other->peer != u &&
		      other->rq_count > UNIX_MAX_DGRAM_QLEN))
			mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	}
	pthread_mutex_unlock(&u->net->lock);
	return mask;
}

static long unix_inq(struct socket *s)
{
	struct unix_sock *u = U(s);
	struct unix_msg *m;
	long n = 0;

	pthread_mutex_lock(&u->net->lock);
	if (u->state == US_LISTEN) {
		n = -EINVAL;
	} else if (u->type == SOCK_DGRAM) {
		if (!list_empty(&u->rq))
			n = (long)list_first_entry(&u->rq, struct unix_msg, link)->len;
	} else {
		list_for_each_entry(m, &u->rq, link)
			n += (long)(m->len - m->consumed);
	}
	pthread_mutex_unlock(&u->net->lock);
	return n;
}

#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67
#endif

/* May the caller set options that need CAP_NET_ADMIN (or CAP_NET_RAW)? */
static bool net_capable(int cap)
{
	struct task *t = current_task();

	return t && creds_capable(&t->creds, cap);
}

#define KCAP_NET_ADMIN 12

static int unix_setsockopt(struct socket *s, int level, int name, const void *val, unsigned len)
{
	struct unix_sock *u = U(s);
	int v = 0, ret = 0;

	if (level != SOL_SOCKET)
		return -EOPNOTSUPP;
	if (name == SO_RCVTIMEO || name == SO_RCVTIMEO_NEW || name == SO_SNDTIMEO ||
	    name == SO_SNDTIMEO_NEW) {
		uint64_t t;
		ret = sock_timeout_set(&t, val, len);
		if (ret)
			return ret;
		pthread_mutex_lock(&u->net->lock);
		if (name == SO_RCVTIMEO || name == SO_RCVTIMEO_NEW)
			u->rcvtimeo = t;
		else
			u->sndtimeo = t;
		pthread_mutex_unlock(&u->net->lock);
		return 0;
	}
	if (name == SO_LINGER) {
		struct linger l;
		if (len < sizeof(l))
			return -EINVAL;
		memcpy(&l, val, sizeof(l));
		pthread_mutex_lock(&u->net->lock);
		u->linger_onoff = l.l_onoff;
		u->linger_secs = l.l_linger;
		pthread_mutex_unlock(&u->net->lock);
		return 0;
	}
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	pthread_mutex_lock(&u->net->lock);
	switch (name) {
	case SO_SNDBUF: {
		uint32_t n = MIN((uint32_t)v, (uint32_t)SOCK_WMEM_MAX);
		u->sndbuf = MAX((int)n * 2, SOCK_MIN_SNDBUF);
		waitq_wake_events(&u->wq, POLL_WAKE_OUT);
		break;
	}
	case SO_RCVBUF: {
		uint32_t n = MIN((uint32_t)v, (uint32_t)SOCK_RMEM_MAX);
		u->rcvbuf = MAX((int)n * 2, SOCK_MIN_RCVBUF);
		break;
	}
	case SO_SNDBUFFORCE:
	case SO_RCVBUFFORCE:
		if (!net_capable(KCAP_NET_ADMIN)) {
			ret = -EPERM;
			break;
		}
		v = MIN(MAX(v, 0), INT_MAX / 2);
		if (name == SO_SNDBUFFORCE) {
			u->sndbuf = MAX(v * 2, SOCK_MIN_SNDBUF);
			waitq_wake_events(&u->wq, POLL_WAKE_OUT);
		} else {
			u->rcvbuf = MAX(v * 2, SOCK_MIN_RCVBUF);
		}
		break;
	case SO_PRIORITY:
		if ((v >= 0 && v <= 6) || net_capable(KCAP_NET_RAW) || net_capable(KCAP_NET_ADMIN))
			u->priority = v;
		else
			ret = -EPERM;
		break;
	case SO_PASSCRED:
		u->passcred = v != 0;
		break;
	case SO_REUSEADDR:
		u->reuseaddr = v != 0;
		break;
	case SO_KEEPALIVE:
		u->keepalive = v != 0;
		break;
	case SO_BROADCAST:
		u->broadcast = v != 0;
		break;
	case SO_NO_CHECK:
		u->no_check = v != 0;
		break;
	case SO_DONTROUTE:
		u->dontroute = v != 0;
		break;
	case SO_OOBINLINE:
		u->oobinline = v != 0;
		break;
	case SO_RCVLOWAT:
		if (v < 0)
			v = INT_MAX;
		u->rcvlowat = v ? v : 1;
		break;
	default:
		ret = -ENOPROTOOPT;
		break;
	}
	pthread_mutex_unlock(&u->net->lock);
	return ret;
}

static int unix_getsockopt(struct socket *s, int level, int name, void *val, unsigned *len)
{
	struct unix_sock *u = U(s);
	union {
		int i;
		struct ucred cr;
		struct timeval tv;
		struct linger l;
	} v;
	unsigned lv = sizeof(int);
	int ret = 0;

	if (level != SOL_SOCKET)
		return -EOPNOTSUPP;
	memset(&v, 0, sizeof(v));
	pthread_mutex_lock(&u->net->lock);
	switch (name) {
	case SO_TYPE:
		v.i = u->type;
		break;
	case SO_DOMAIN:
		v.i = AF_UNIX;
		break;
	case SO_PROTOCOL:
		v.i = 0;
		break;
	case SO_ERROR:
		v.i = -take_error(u);
		break;
	case SO_ACCEPTCONN:
		v.i = u->state == US_LISTEN;
		break;
	case SO_SNDBUF:
		v.i = u->sndbuf;
		break;
	case SO_RCVBUF:
		v.i = u->rcvbuf;
		break;
	case SO_PASSCRED:
		v.i = u->passcred;
		break;
	case SO_REUSEADDR:
		v.i = u->reuseaddr;
		break;
	case SO_KEEPALIVE:
		v.i = u->keepalive;
		break;
	case SO_BROADCAST:
		v.i = u->broadcast;
		break;
	case SO_NO_CHECK:
		v.i = u->no_check;
		break;
	case SO_DONTROUTE:
		v.i = u->dontroute;
		break;
	case SO_OOBINLINE:
		v.i = u->oobinline;
		break;
	case SO_RCVLOWAT:
		v.i = u->rcvlowat;
		break;
	case SO_SNDLOWAT:
		v.i = 1;
		break;
	case SO_PRIORITY:
		v.i = u->priority;
		break;
	case SO_LINGER:
		v.l.l_onoff = u->linger_onoff;
		v.l.l_linger = u->linger_secs;
		lv = sizeof(v.l);
		break;
	case SO_RCVTIMEO:
	case SO_RCVTIMEO_NEW:
		sock_timeout_get(u->rcvtimeo, &v.tv);
		lv = sizeof(v.tv);
		break;
	case SO_SNDTIMEO:
	case SO_SNDTIMEO_NEW:
		sock_timeout_get(u->sndtimeo, &v.tv);
		lv = sizeof(v.tv);
		break;
	case SO_PEERCRED:
		if (u->peercred_set && current_task())
			ucred_view(current_task(), &u->peercred, &v.cr);
		else if (u->peercred_set)
			v.cr = u->peercred;
		else
			v.cr = (struct ucred){.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
		lv = sizeof(v.cr);
		break;
	default:
		ret = -ENOPROTOOPT;
		break;
	}
	pthread_mutex_unlock(&u->net->lock);
	if (ret)
		return ret;
	if (*len > lv)
		*len = lv;
	memcpy(val, &v, *len);
	return 0;
}

static void unix_file_release(struct socket *s)
{
	unix_release_sock(U(s), false);
}

#define UNIX_COMMON_OPS                                                                     \
	.family = AF_UNIX, .bind = unix_bind, .listen = unix_listen, .accept = unix_accept, \
	.getname = unix_getname, .shutdown = unix_shutdown, .setsockopt = unix_setsockopt,  \
	.getsockopt = unix_getsockopt, .poll = unix_poll, .inq = unix_inq,                  \
	.release = unix_file_release

static const struct sock_ops unix_stream_ops = {
	UNIX_COMMON_OPS,
	.connect = unix_stream_connect,
	.sendmsg = unix_stream_sendmsg,
	.recvmsg = unix_stream_recvmsg,
};

static const struct sock_ops unix_seqpacket_ops = {
	UNIX_COMMON_OPS,
	.connect = unix_stream_connect,
	.sendmsg = unix_seqpacket_sendmsg,
	.recvmsg = unix_seqpacket_recvmsg,
};

static const struct sock_ops unix_dgram_ops = {
	UNIX_COMMON_OPS,
	.connect = unix_dgram_connect,
	.sendmsg = unix_dgram_sendmsg,
	.recvmsg = unix_dgram_recvmsg,
};

/* --- creation ------------------------------------------------------------------------------------- */

/* Linux's unix_create: the protocol must be 0 or PF_UNIX; SOCK_RAW is SOCK_DGRAM. */
static int check_type(int *type, int protocol)
{
	if (protocol && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	switch (*type) {
	case SOCK_STREAM:
	case SOCK_DGRAM:
	case SOCK_SEQPACKET:
		return 0;
	case SOCK_RAW:
		*type = SOCK_DGRAM;
		return 0;
	default:
		return -ESOCKTNOSUPPORT;
	}
}

int unix_create(struct task *t, int type, int protocol, struct socket **out)
{
	int ret = check_type(&type, protocol);

	if (ret)
		return ret;
	*out = &usock_new(unix_net_of(t), type)->sock;
	return 0;
}

int unix_create_pair(struct task *t, int type, int protocol, struct socket **a, struct socket **b)
{
	struct unix_net *net = unix_net_of(t);
	struct unix_sock *ua, *ub;
	int ret = check_type(&type, protocol);

	if (ret)
		return ret;
	ua = usock_new(net, type);
	ub = usock_new(net, type);
	ua->peer = usock_get(ub);
	ub->peer = usock_get(ua);
	if (type == SOCK_DGRAM) {
		list_add_tail(&ua->incoming_link, &ub->incoming);
		list_add_tail(&ub->incoming_link, &ua->incoming);
	}
	ua->peercred = ub->peercred = peercred_of(t);
	ua->peercred_set = ub->peercred_set = true;
	ua->state = ub->state = US_ESTABLISHED;
	*a = &ua->sock;
	*b = &ub->sock;
	return 0;
}
