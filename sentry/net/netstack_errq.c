/*
 * The error queue of a UDP socket (IP_RECVERR, IPV6_RECVERR): the ICMP
 * errors its datagrams drew, read with recvmsg(MSG_ERRQUEUE) as Linux's
 * ip_recv_error and ipv6_recv_error give them: the quoted datagram's
 * payload as data, its destination as the name, and a sock_extended_err
 * with the offender's address as the control message.
 *
 * lwIP quotes only 8 bytes of a datagram in its ICMP errors, where Linux
 * quotes up to 576 (IPv4) or 1280 (IPv6) bytes of packet. So a socket with
 * either option on keeps the start of the last datagram it sent: an error
 * whose quoted UDP header names that datagram (its destination, port and
 * length) gets it as its payload, as much as Linux would have quoted.
 */
#include "config.h"
#include "sentry/net/netstack_priv.h"
#include "lib/util.h"

#include <lwip/ip.h>

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define QUOTE4_MAX (576 - 20 - 8 - 20 - 8)  /* icmp_send's room, less the headers */
#define QUOTE6_MAX (1280 - 40 - 8 - 40 - 8) /* icmp6_send's */
#define ERRQ_COST  512			    /* what a queued error costs beyond its data */

struct ns_errq {
	struct list_head link;
	struct sock_extended_err ee;
	ip_addr_t offender, dst; /* the ICMP's source; the datagram's destination */
	uint16_t dport;
	size_t len;
	unsigned char data[];
};

struct ns_quote {
	ip_addr_t dst;
	uint16_t dport;
	size_t full, len; /* the datagram's length, the part kept */
	unsigned char data[QUOTE6_MAX];
};

void ns_errq_note_send(struct ns_sock *ns, const ip_addr_t *dst, uint16_t dport, const void *data,
		       size_t len)
{
	struct ns_quote *q = ns->quote;

	if (!ns->recverr && !ns->recverr6)
		return;
	if (!q)
		q = ns->quote = xmalloc(sizeof(*q));
	ip_addr_copy(q->dst, *dst);
	q->dport = dport;
	q->full = len;
	q->len = MIN(sizeof(q->data), len);
	memcpy(q->data, data, q->len);
}

void ns_errq_queue(struct ns_sock *ns, const struct ns_icmp_err *e)
{
	const struct ns_quote *q = ns->quote;
	const unsigned char *data = e->data;
	size_t len = e->len;
	struct ns_errq *x;

	/* the datagram the quote names, if this socket sent it last */
	if (q && q->dport == e->dport && q->full + 8 == e->udp_len &&
	    ip_addr_cmp(&q->dst, &e->dst) && len < q->len) {
		data = q->data;
		len = MIN(q->len, IP_IS_V4(&e->dst) ? (size_t)QUOTE4_MAX : (size_t)QUOTE6_MAX);
	}
	/* sock_queue_err_skb: within the receive buffer */
	if (ns->rx_len + ns->errq_len + len + ERRQ_COST > (size_t)ns->rcvbuf ||
	    !ns_charge(ns, len + ERRQ_COST))
		return;
	x = xzalloc(sizeof(*x) + len);
	x->ee.ee_errno = (uint32_t)e->err;
	x->ee.ee_origin = IP_IS_V4(&e->dst) ? SO_EE_ORIGIN_ICMP : SO_EE_ORIGIN_ICMP6;
	x->ee.ee_type = e->type;
	x->ee.ee_code = e->code;
	x->ee.ee_info = e->info;
	ip_addr_copy(x->offender, e->offender);
	ip_addr_copy(x->dst, e->dst);
	x->dport = e->dport;
	x->len = len;
	memcpy(x->data, data, len);
	list_add_tail(&x->link, &ns->errq);
	ns->errq_len += len + ERRQ_COST;
}

static void errq_drop(struct ns_sock *ns, struct ns_errq *x)
{
	list_del(&x->link);
	ns->errq_len -= x->len + ERRQ_COST;
	ns_uncharge(ns, x->len + ERRQ_COST);
	free(x);
}

void ns_errq_flush(struct ns_sock *ns)
{
	while (!list_empty(&ns->errq))
		errq_drop(ns, list_first_entry(&ns->errq, struct ns_errq, link));
}

void ns_errq_release(struct ns_sock *ns)
{
	ns_errq_flush(ns);
	free(ns->quote);
	ns->quote = NULL;
}

long ns_errq_recv(struct ns_sock *ns, struct sock_msg *m)
{
	struct {
		struct sock_extended_err ee;
		struct sockaddr_in6 offender; /* or a sockaddr_in */
	} h;
	struct ns_errq *x;
	size_t n, hlen;
	bool fault = false;
	unsigned char *buf;
	ip_addr_t dst;
	uint16_t dport;

	ns_lock();
	if (list_empty(&ns->errq)) {
		ns_unlock();
		return -EAGAIN;
	}
	x = list_first_entry(&ns->errq, struct ns_errq, link);
	list_del_init(&x->link);
	/* sock_dequeue_err_skb: the socket's error is the next one's, or none */
	ns->err = list_empty(&ns->errq)
			  ? 0
			  : (int)list_first_entry(&ns->errq, struct ns_errq, link)->ee.ee_errno;
	ns->errq_len -= x->len + ERRQ_COST;
	ns_uncharge(ns, x->len + ERRQ_COST);
	ns_unlock();

	memset(&h, 0, sizeof(h));
	h.ee = x->ee;
	hlen = sizeof(h.ee) + (size_t)ns_addr_out(ns, &x->offender, 0, &h.offender);
	ns_put_cmsg(&m->scm, ns->family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
		    ns->family == AF_INET ? IP_RECVERR : IPV6_RECVERR, &h, hlen);
	n = MIN(x->len, m->iter.count);
	buf = x->data;
	msg_iter_copy_out(&m->iter, buf, n, &fault);
	if (n < x->len)
		m->out_flags |= MSG_TRUNC;
	m->out_flags |= MSG_ERRQUEUE;
	ip_addr_copy(dst, x->dst);
	dport = x->dport;
	free(x);
	if (fault)
		return -EFAULT;
	if (m->name_out)
		m->namelen_out = ns_addr_out(ns, &dst, dport, m->name_out);
	return (long)n;
}
