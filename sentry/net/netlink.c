/*
 * AF_NETLINK NETLINK_ROUTE sockets served by the sentry from the sandbox's
 * network configuration (k->net->cfg): RTM_GETLINK, RTM_GETADDR and
 * RTM_GETROUTE dumps, enough for `ip addr`, `ip route` and glibc's
 * getifaddrs. Nothing can be changed: a change the configuration already
 * satisfies succeeds (answer_change), other requests get an NLMSG_ERROR of
 * EOPNOTSUPP. Answers are queued on the socket as datagrams of at most
 * one page of whole messages (glibc reads them into a page).
 */
#include "config.h"
#include "sentry/net/netlink.h"
#include "sentry/net/net.h"
#include "sentry/net/socket.h"
#include "sentry/fs/file.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/nsproxy.h"
#include "sentry/kernel/signal.h"
#include "sentry/kernel/pidns.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/wait.h"
#include "lib/list.h"
#include "lib/util.h"

#include <errno.h>
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define NL_DGRAM_MAX 4096

struct nl_dgram {
	struct list_head node;
	size_t len;
	char data[];
};

struct nl_sock {
	struct socket s;
	pthread_mutex_t lock;
	struct waitq wq;
	struct list_head queue; /* struct nl_dgram, oldest first */
	size_t queued;		/* bytes in queue (at most about rcvbuf) */
	bool overrun;		/* answers were dropped: the next receive says ENOBUFS */
	uint32_t portid;	/* 0 until bound (autobind: the tgid) */
	uint64_t rcvtimeo;
	int rcvbuf, sndbuf;
	struct kernel *k;
};

static const struct sock_ops netlink_ops;

static struct nl_sock *NL(struct socket *s)
{
	return container_of(s, struct nl_sock, s);
}

int netlink_create(struct task *t, int type, int protocol, struct socket **out)
{
	struct nl_sock *n;

	if (type != SOCK_RAW && type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != NETLINK_ROUTE)
		return -EPROTONOSUPPORT;
	n = xzalloc(sizeof(*n));
	n->s.ops = &netlink_ops;
	n->s.type = type;
	n->k = t->k;
	n->rcvtimeo = SOCK_TIMEO_NONE;
	n->rcvbuf = SOCK_RMEM_DEFAULT;
	n->sndbuf = SOCK_WMEM_DEFAULT;
	pthread_mutex_init(&n->lock, NULL);
	waitq_init(&n->wq);
	list_init(&n->queue);
	*out = &n->s;
	return 0;
}

/* --- building answers ------------------------------------------------------------------- */

/* The answer to one request: datagrams being filled. */
struct nl_out {
	struct list_head dgrams;
	struct nl_dgram *cur;
	uint32_t seq, portid;
};

static void *out_put(struct nl_out *o, size_t len)
{
	size_t need = NLMSG_ALIGN(len);
	void *p;

	if (!o->cur || o->cur->len + need > NL_DGRAM_MAX) {
		o->cur = xzalloc(sizeof(*o->cur) + MAX(need, (size_t)NL_DGRAM_MAX));
		list_add_tail(&o->cur->node, &o->dgrams);
	}
	p = o->cur->data + o->cur->len;
	o->cur->len += need;
	return p;
}

/* A message under construction in a local buffer (one is far below a page). */
struct nl_msg {
	char buf[1024];
	size_t len;
};

static struct nlmsghdr *msg_start(struct nl_msg *m, const struct nl_out *o, int type, int flags,
				  const void *hdr, size_t hlen)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;

	memset(m->buf, 0, sizeof(m->buf));
	h->nlmsg_type = (uint16_t)type;
	h->nlmsg_flags = (uint16_t)flags;
	h->nlmsg_seq = o->seq;
	h->nlmsg_pid = o->portid;
	memcpy(NLMSG_DATA(h), hdr, hlen);
	m->len = NLMSG_LENGTH(hlen);
	return h;
}

static void attr(struct nl_msg *m, int type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)(m->buf + NLMSG_ALIGN(m->len));

	if (NLMSG_ALIGN(m->len) + RTA_SPACE(len) > sizeof(m->buf))
		return;
	a->rta_type = (uint16_t)type;
	a->rta_len = (uint16_t)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	m->len = NLMSG_ALIGN(m->len) + RTA_SPACE(len);
}

static void attr_u32(struct nl_msg *m, int type, uint32_t v)
{
	attr(m, type, &v, sizeof(v));
}

static void msg_end(struct nl_msg *m, struct nl_out *o)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;

	h->nlmsg_len = (uint32_t)m->len;
	memcpy(out_put(o, m->len), m->buf, m->len);
}

static void put_done(struct nl_out *o, int error)
{
	struct nl_msg m;

	msg_start(&m, o, NLMSG_DONE, NLM_F_MULTI, &error, sizeof(error));
	msg_end(&m, o);
}

static void put_error(struct nl_out *o, int error, const struct nlmsghdr *req)
{
	struct nl_msg m;
	struct nlmsgerr e = {.error = error, .msg = *req};

	msg_start(&m, o, NLMSG_ERROR, 0, &e, sizeof(e));
	msg_end(&m, o);
}

static void dump_links(const struct net_config *c, struct nl_out *o)
{
	for (size_t i = 0; i < c->nifs; i++) {
		const struct net_iface *nif = &c->ifs[i];
		struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC,
					.ifi_type = nif->loopback ? ARPHRD_LOOPBACK : ARPHRD_ETHER,
					.ifi_index = nif->index,
					.ifi_flags = nif->flags};
		static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
		uint8_t zero[6] = {0};
		uint8_t oper = (nif->flags & IFF_RUNNING) ? (nif->loopback ? 0 : 6) : 2;
		struct nl_msg m;

		msg_start(&m, o, RTM_NEWLINK, NLM_F_MULTI, &ifi, sizeof(ifi));
		attr(&m, IFLA_IFNAME, nif->name, strlen(nif->name) + 1);
		attr_u32(&m, IFLA_MTU, nif->mtu);
		attr_u32(&m, IFLA_TXQLEN, 1000);
		attr(&m, IFLA_OPERSTATE, &oper, 1);
		attr(&m, IFLA_ADDRESS, nif->loopback ? zero : nif->mac, 6);
		attr(&m, IFLA_BROADCAST, nif->loopback ? zero : bcast, 6);
		msg_end(&m, o);
	}
}

static int addr_scope(const struct net_iface *nif, const struct net_iface_addr *a)
{
	if (nif->loopback)
		return RT_SCOPE_HOST;
	if (a->family == AF_INET6 && a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80)
		return RT_SCOPE_LINK;
	return RT_SCOPE_UNIVERSE;
}

static void dump_addrs(const struct net_config *c, int family, struct nl_out *o)
{
	for (size_t i = 0; i < c->nifs; i++) {
		const struct net_iface *nif = &c->ifs[i];

		for (int j = 0; j < nif->naddrs; j++) {
			const struct net_iface_addr *a = &nif->addrs[j];
			size_t alen = a->family == AF_INET ? 4 : 16;
			struct ifaddrmsg ifa = {.ifa_family = (uint8_t)a->family,
						.ifa_prefixlen = (uint8_t)a->prefixlen,
						.ifa_flags = IFA_F_PERMANENT,
						.ifa_scope = (uint8_t)addr_scope(nif, a),
						.ifa_index = (uint32_t)nif->index};
			struct nl_msg m;

			if (family != AF_UNSPEC && family != a->family)
				continue;
			msg_start(&m, o, RTM_NEWADDR, NLM_F_MULTI, &ifa, sizeof(ifa));
			attr(&m, IFA_ADDRESS, a->addr, alen);
			if (a->family == AF_INET) {
				attr(&m, IFA_LOCAL, a->addr, 4);
				if (!nif->loopback && a->prefixlen < 31) {
					uint8_t b[4];
					uint32_t host = a->prefixlen ? ~0u >> a->prefixlen : ~0u;
					for (int k = 0; k < 4; k++)
						b[k] = a->addr[k] | (uint8_t)(host >> (24 - 8 * k));
					attr(&m, IFA_BROADCAST, b, 4);
				}
				attr(&m, IFA_LABEL, nif->name, strlen(nif->name) + 1);
			}
			attr_u32(&m, IFA_FLAGS, IFA_F_PERMANENT);
			msg_end(&m, o);
		}
	}
}

static void dump_routes(const struct net_config *c, int family, struct nl_out *o)
{
	for (size_t i = 0; i < c->nroutes; i++) {
		const struct net_route *r = &c->routes[i];
		size_t alen = r->family == AF_INET ? 4 : 16;
		struct rtmsg rtm = {.rtm_family = (uint8_t)r->family,
				    .rtm_dst_len = (uint8_t)r->dst_len,
				    .rtm_table = RT_TABLE_MAIN,
				    .rtm_protocol = r->has_gw ? RTPROT_BOOT : RTPROT_KERNEL,
				    .rtm_scope = r->has_gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK,
				    .rtm_type = RTN_UNICAST};
		struct nl_msg m;

		if (family != AF_UNSPEC && family != r->family)
			continue;
		msg_start(&m, o, RTM_NEWROUTE, NLM_F_MULTI, &rtm, sizeof(rtm));
		attr_u32(&m, RTA_TABLE, RT_TABLE_MAIN);
		if (r->dst_len)
			attr(&m, RTA_DST, r->dst, alen);
		if (r->has_gw)
			attr(&m, RTA_GATEWAY, r->gw, alen);
		if (r->ifindex)
			attr_u32(&m, RTA_OIF, (uint32_t)r->ifindex);
		if (r->metric)
			attr_u32(&m, RTA_PRIORITY, r->metric);
		msg_end(&m, o);
	}
}

/*
 * The changes a sandbox's configuration already satisfies, which a guest
 * that sets up a loopback makes (bwrap, unshare -n): RTM_NEWLINK of flags
 * the link has, RTM_NEWADDR of an address it has. In the sandbox's first
 * network namespace an existing address is EEXIST under NLM_F_EXCL, as on
 * Linux; a new namespace still uses the sandbox's stack, and takes the
 * address lo has as the one it gives its own loopback. 1 when answered.
 */
static bool answer_change(const struct net_config *c, const struct nlmsghdr *h, struct nl_out *o)
{
	size_t plen = h->nlmsg_len - NLMSG_HDRLEN;
	struct task *t = current_task();
	const struct net_iface *nif = NULL;
	struct nsproxy *ns = t ? task_ns(t) : NULL;
	int err = -EOPNOTSUPP, index;

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_SETLINK &&
	    h->nlmsg_type != RTM_NEWADDR)
		return false;
	if (!t || !creds_ns_capable(&t->creds, ns->net->owner, KCAP_NET_ADMIN)) {
		put_error(o, -EPERM, h);
		return true;
	}
	if (h->nlmsg_type == RTM_NEWADDR) {
		const struct ifaddrmsg *ifa = NLMSG_DATA(h);
		const struct rtattr *rta = (const struct rtattr *)(ifa + 1);
		int rem = (int)plen - (int)NLMSG_ALIGN(sizeof(*ifa));
		const uint8_t *local = NULL;
		size_t alen;

		if (plen < sizeof(*ifa))
			goto out;
		index = (int)ifa->ifa_index;
		alen = ifa->ifa_family == AF_INET ? 4 : 16;
		for (; RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem))
			if ((rta->rta_type == IFA_LOCAL ||
			     (rta->rta_type == IFA_ADDRESS && !local)) &&
			    RTA_PAYLOAD(rta) == alen)
				local = RTA_DATA(rta);
		for (size_t i = 0; i < c->nifs; i++)
			if (c->ifs[i].index == index)
				nif = &c->ifs[i];
		for (int j = 0; nif && local && j < nif->naddrs; j++) {
			const struct net_iface_addr *a = &nif->addrs[j];
			if (a->family == ifa->ifa_family && a->prefixlen == ifa->ifa_prefixlen &&
			    memcmp(a->addr, local, alen) == 0) {
				bool first_ns = ns->net == kernel_nsproxy(t->k)->net;
				err = first_ns && (h->nlmsg_flags & NLM_F_EXCL) ? -EEXIST : 0;
				if (!first_ns && !nif->loopback)
					err = -EOPNOTSUPP;
			}
		}
	} else {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);
		unsigned change;

		/* Flags only: attributes (a name, an mtu) are changes. */
		if (plen < sizeof(*ifi) || plen > NLMSG_ALIGN(sizeof(*ifi)))
			goto out;
		for (size_t i = 0; i < c->nifs; i++)
			if (c->ifs[i].index == ifi->ifi_index)
				nif = &c->ifs[i];
		if (!nif) {
			err = -ENODEV;
			goto out;
		}
		change = ifi->ifi_change ? ifi->ifi_change : ~0u;
		if (((ifi->ifi_flags ^ nif->flags) & change & IFF_UP) == 0)
			err = 0;
	}
out:
	if (err || (h->nlmsg_flags & NLM_F_ACK))
		put_error(o, err, h);
	return true;
}

/* Answer one request into o. */
static void answer(struct nl_sock *n, const struct nlmsghdr *h, struct nl_out *o)
{
	const struct net_config *c = n->k->net ? &n->k->net->cfg : NULL;
	size_t plen = h->nlmsg_len - NLMSG_HDRLEN;
	int family = plen >= 1 ? *(const uint8_t *)NLMSG_DATA(h) : AF_UNSPEC;
	bool dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	struct net_config none = {0};

	o->seq = h->nlmsg_seq;
	if (h->nlmsg_type < NLMSG_MIN_TYPE) {
		return; /* NOOP, DONE, ERROR from the guest: nothing to say */
	}
	if (!c)
		c = &none;
	if (dump && (h->nlmsg_type == RTM_GETLINK || h->nlmsg_type == RTM_GETADDR ||
		     h->nlmsg_type == RTM_GETROUTE)) {
		if (h->nlmsg_type == RTM_GETLINK)
			dump_links(c, o);
		else if (h->nlmsg_type == RTM_GETADDR)
			dump_addrs(c, family, o);
		else
			dump_routes(c, family, o);
		put_done(o, 0);
		return;
	}
	if (answer_change(c, h, o))
		return;
	/* Other changes, single gets and other tables: the sandbox's
	 * configuration is read-only and only the three dumps are served. */
	put_error(o, -EOPNOTSUPP, h);
}

/* --- the operations ----------------------------------------------------------------------- */

static uint32_t autobind(struct nl_sock *n)
{
	struct task *t = current_task();

	if (!n->portid)
		n->portid =
			t ? (uint32_t)tg_pid_nr(t->tg, t->pidns) : 1; /* its pid, as it knows it */
	return n->portid;
}

static int nl_bind(struct socket *s, const void *addr, int len)
{
	const struct sockaddr_nl *a = addr;
	struct nl_sock *n = NL(s);

	if (len < (int)sizeof(*a) || a->nl_family != AF_NETLINK)
		return -EINVAL;
	pthread_mutex_lock(&n->lock);
	if (a->nl_pid && n->portid && a->nl_pid != n->portid) {
		pthread_mutex_unlock(&n->lock);
		return -EINVAL;
	}
	if (a->nl_pid)
		n->portid = a->nl_pid;
	autobind(n);
	pthread_mutex_unlock(&n->lock);
	return 0; /* multicast groups are accepted; nothing is ever announced */
}

static int nl_connect(struct socket *s, const void *addr, int len, bool nonblock)
{
	const struct sockaddr_nl *a = addr;
	struct nl_sock *n = NL(s);

	if (len < (int)sizeof(sa_family_t))
		return -EINVAL;
	if (a->nl_family == AF_UNSPEC)
		return 0;
	if (len < (int)sizeof(*a) || a->nl_family != AF_NETLINK)
		return -EINVAL;
	if (a->nl_pid != 0)
		return -ECONNREFUSED; /* only the kernel answers here */
	pthread_mutex_lock(&n->lock);
	autobind(n);
	pthread_mutex_unlock(&n->lock);
	return 0;
}

static int nl_listen(struct socket *s, int backlog)
{
	return -EOPNOTSUPP;
}

static int nl_accept(struct socket *s, bool nonblock, struct socket **out)
{
	return -EOPNOTSUPP;
}

static int nl_getname(struct socket *s, void *addr, bool peer)
{
	struct sockaddr_nl a = {.nl_family = AF_NETLINK};
	struct nl_sock *n = NL(s);

	if (!peer) {
		pthread_mutex_lock(&n->lock);
		a.nl_pid = n->portid;
		pthread_mutex_unlock(&n->lock);
	}
	memcpy(addr, &a, sizeof(a));
	return sizeof(a);
}

static long nl_sendmsg(struct socket *s, struct sock_msg *m)
{
	struct nl_sock *n = NL(s);
	size_t len = m->iter.count;
	struct nl_out o = {.dgrams = LIST_HEAD_INIT(o.dgrams)};
	const struct sockaddr_nl *dst = m->name;
	bool fault;
	char *buf;
	int rem;

	if (dst && (m->namelen < (int)sizeof(*dst) || dst->nl_family != AF_NETLINK))
		return -EINVAL;
	if (dst && dst->nl_pid != 0)
		return -ECONNREFUSED;
	if (len > (size_t)n->sndbuf)
		return -EMSGSIZE;
	buf = xmalloc(len ? len : 1);
	if (msg_iter_copy_in(&m->iter, buf, len, &fault) != len) {
		free(buf);
		return -EFAULT;
	}
	pthread_mutex_lock(&n->lock);
	o.portid = autobind(n);
	rem = (int)len;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)rem);
	     h = NLMSG_NEXT(h, rem)) {
		if (!(h->nlmsg_flags & NLM_F_REQUEST))
			continue;
		/* A receive buffer's worth is queued at most, as Linux drops
		 * what does not fit (and says ENOBUFS once). */
		if (n->queued >= (size_t)n->rcvbuf) {
			n->overrun = true;
			break;
		}
		answer(n, h, &o);
		while (!list_empty(&o.dgrams)) {
			struct nl_dgram *d = list_first_entry(&o.dgrams, struct nl_dgram, node);
			list_del(&d->node);
			list_add_tail(&d->node, &n->queue);
			n->queued += d->len;
		}
		o.cur = NULL;
	}
	pthread_mutex_unlock(&n->lock);
	free(buf);
	waitq_wake_events(&n->wq, POLLIN | POLLRDNORM);
	return (long)len;
}

static long nl_recvmsg(struct socket *s, struct sock_msg *m)
{
	struct nl_sock *n = NL(s);
	uint64_t deadline = 0;
	struct nl_dgram *d;
	bool fault;
	long ret;

	pthread_mutex_lock(&n->lock);
	while (list_empty(&n->queue)) {
		struct task *t = current_task();

		if (n->overrun) {
			n->overrun = false;
			pthread_mutex_unlock(&n->lock);
			return -ENOBUFS;
		}
		struct waiter w = {0};
		uint32_t snap;
		int r;

		if ((m->flags & MSG_DONTWAIT) || n->rcvtimeo == 0 || !t) {
			pthread_mutex_unlock(&n->lock);
			return -EAGAIN;
		}
		if (n->rcvtimeo != SOCK_TIMEO_NONE && !deadline)
			deadline = monotonic_ns() + n->rcvtimeo;
		snap = waiter_prepare(&n->wq, &w, t);
		pthread_mutex_unlock(&n->lock);
		r = task_block(t, snap, deadline);
		waiter_finish(&n->wq, &w);
		pthread_mutex_lock(&n->lock);
		if (r == -ETIMEDOUT && list_empty(&n->queue)) {
			pthread_mutex_unlock(&n->lock);
			return -EAGAIN;
		}
		if (r == -EINTR) {
			pthread_mutex_unlock(&n->lock);
			return n->rcvtimeo == SOCK_TIMEO_NONE ? -ERESTARTSYS : -EINTR;
		}
	}
	d = list_first_entry(&n->queue, struct nl_dgram, node);
	ret = (long)msg_iter_copy_out(&m->iter, d->data, d->len, &fault);
	if (fault && ret == 0) {
		pthread_mutex_unlock(&n->lock);
		return -EFAULT;
	}
	if ((size_t)ret < d->len)
		m->out_flags |= MSG_TRUNC;
	if (m->flags & MSG_TRUNC)
		ret = (long)d->len;
	if (!(m->flags & MSG_PEEK)) {
		list_del(&d->node);
		n->queued -= d->len;
		free(d);
	}
	pthread_mutex_unlock(&n->lock);
	if (m->name_out) {
		struct sockaddr_nl from = {.nl_family = AF_NETLINK};
		memcpy(m->name_out, &from, sizeof(from));
		m->namelen_out = sizeof(from);
	}
	return ret;
}

static int nl_shutdown(struct socket *s, int how)
{
	return 0;
}

static int nl_setsockopt(struct socket *s, int level, int name, const void *val, unsigned len)
{
	struct nl_sock *n = NL(s);
	int v;

	if (level != SOL_SOCKET)
		return -ENOPROTOOPT;
	if (name == SO_RCVTIMEO)
		return sock_timeout_set(&n->rcvtimeo, val, len);
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	switch (name) {
	case SO_RCVBUF:
		n->rcvbuf =
			MAX((int)MIN((unsigned)v, (unsigned)SOCK_RMEM_MAX) * 2, SOCK_MIN_RCVBUF);
		return 0;
	case SO_SNDBUF:
		n->sndbuf =
			MAX((int)MIN((unsigned)v, (unsigned)SOCK_WMEM_MAX) * 2, SOCK_MIN_SNDBUF);
		return 0;
	case SO_RCVBUFFORCE:
	case SO_SNDBUFFORCE:
	case SO_PASSCRED:
	case SO_TIMESTAMP:
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int nl_getsockopt(struct socket *s, int level, int name, void *val, unsigned *len)
{
	struct nl_sock *n = NL(s);
	int v;

	if (level != SOL_SOCKET)
		return -ENOPROTOOPT;
	switch (name) {
	case SO_TYPE:
		v = s->type;
		break;
	case SO_DOMAIN:
		v = AF_NETLINK;
		break;
	case SO_PROTOCOL:
		v = NETLINK_ROUTE;
		break;
	case SO_RCVBUF:
		v = n->rcvbuf;
		break;
	case SO_SNDBUF:
		v = n->sndbuf;
		break;
	case SO_ERROR:
	case SO_ACCEPTCONN:
		v = 0;
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (*len < sizeof(int))
		return -EINVAL;
	*len = sizeof(int);
	memcpy(val, &v, sizeof(v));
	return 0;
}

static unsigned nl_poll(struct socket *s, struct poll_table *pt)
{
	struct nl_sock *n = NL(s);
	unsigned ev = POLLOUT | POLLWRNORM;

	poll_wait(pt, &n->wq);
	pthread_mutex_lock(&n->lock);
	if (!list_empty(&n->queue))
		ev |= POLLIN | POLLRDNORM;
	pthread_mutex_unlock(&n->lock);
	return ev;
}

static long nl_inq(struct socket *s)
{
	struct nl_sock *n = NL(s);
	long len = 0;

	pthread_mutex_lock(&n->lock);
	if (!list_empty(&n->queue))
		len = (long)list_first_entry(&n->queue, struct nl_dgram, node)->len;
	pthread_mutex_unlock(&n->lock);
	return len;
}

static void nl_release(struct socket *s)
{
	struct nl_sock *n = NL(s);
	struct nl_dgram *d, *tmp;

	list_for_each_entry_safe(d, tmp, &n->queue, node)
		free(d);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

static const struct sock_ops netlink_ops = {
	.family = AF_NETLINK,
	.bind = nl_bind,
	.connect = nl_connect,
	.listen = nl_listen,
	.accept = nl_accept,
	.getname = nl_getname,
	.sendmsg = nl_sendmsg,
	.recvmsg = nl_recvmsg,
	.shutdown = nl_shutdown,
	.setsockopt = nl_setsockopt,
	.getsockopt = nl_getsockopt,
	.poll = nl_poll,
	.inq = nl_inq,
	.release = nl_release,
};
