/*
 * The inside of the user-space stack (netstack.h), shared by its files:
 * netstack.c (lwIP's thread, the loopback, socket creation, waiting),
 * netstack_addr.c (guest addresses), netstack_opt.c (options),
 * netstack_tcp.c, netstack_udp.c (the sock_ops) and lwip_link.c (the
 * interfaces attached over AF_PACKET).
 *
 * Locking: lwIP's core lock (LOCK_TCPIP_CORE) guards lwIP and the state of
 * every struct ns_sock; lwIP's callbacks run with it held and wake the
 * socket's wait queue. Nothing touches guest memory under it: data moves
 * through sentry buffers, with the socket's rlock (readers) or wlock
 * (writers) held so that a stream's bytes stay in order. Order: rlock or
 * wlock, then the core lock, then a wait queue's lock.
 */
#ifndef RUNG_NET_NETSTACK_PRIV_H
#define RUNG_NET_NETSTACK_PRIV_H

#include "sentry/net/socket.h"
#include "sentry/net/sockfilter.h"
#include "sentry/kernel/wait.h"
#include "lib/list.h"

#include <lwip/ip_addr.h>
#include <lwip/pbuf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct task;
struct tcp_pcb;
struct udp_pcb;
struct raw_pcb;
struct poll_table;

/* Linux's defaults for TCP (tcp_wmem[1], tcp_rmem[1]) and UDP (wmem_default). */
#define NS_TCP_SNDBUF_DEFAULT 16384
#define NS_TCP_RCVBUF_DEFAULT 131072
#define NS_UDP_BUF_DEFAULT    212992
#define NS_TTL_DEFAULT	      64

enum ns_state {
	NS_CLOSED,     /* new, bound, or its connection is over */
	NS_LISTEN,     /* TCP: listening */
	NS_CONNECTING, /* TCP: SYN sent */
	NS_CONNECTED,  /* TCP: established (or later); UDP: has a default peer */
	NS_FAILED,     /* TCP: the connection attempt failed; connect() reports it once */
};

/* A received datagram (UDP). */
struct ns_dgram {
	struct list_head link;
	struct pbuf *p;
	ip_addr_t addr;
	uint16_t port;
	/* for control messages: the header's, the arrival's */
	ip_addr_t dst;
	uint8_t tos, ttl;
	bool v4; /* came as IPv4 */
	int ifindex;
	uint16_t dport; /* UDP: the port it came to (IP_ORIGDSTADDR) */
	struct timespec ts;
};

struct ns_sock {
	struct socket sock;
	int family; /* AF_INET or AF_INET6 */
	int protocol;
	enum ns_state state;
	union {
		struct tcp_pcb *tcp;
		struct udp_pcb *udp;
		struct raw_pcb *raw;
	} pcb;			       /* NULL until needed, and once lwIP freed it */
	bool bound;		       /* has a local port */
	bool bind_addr_lock;	       /* bind() chose the local address */
	bool bind_port_lock;	       /* bind() chose the local port */
	ip_addr_t local_ip, remote_ip; /* the last known, for getsockname/getpeername */
	uint16_t local_port, remote_port;
	bool has_peer;
	int err;	   /* pending error (SO_ERROR), a positive errno */
	unsigned shutdown; /* SOCK_RCV_SHUTDOWN | SOCK_SEND_SHUTDOWN, by the guest */
	bool rx_fin;	   /* TCP: the peer sent FIN */
	bool reset;	   /* TCP: the connection was reset or aborted */
	/* TCP: received bytes not yet read; UDP: received datagrams */
	struct pbuf *rx;
	size_t rx_len;
	struct list_head dgrams;
	/* Bytes of received data and of TCP data lwIP has not seen acknowledged
	 * yet, charged to the sandbox's memory account (core lock held). */
	size_t charged, tx_charged;
	/* listener: accepted connections waiting for accept() */
	struct list_head accq;
	int acc_count, backlog;
	struct list_head acc_link;
	struct list_head udp_link; /* UDP: in the list ICMP errors search */
	/* UDP: the error queue (netstack_errq.c), its bytes, the last
	 * datagram's start for the errors' payload */
	struct list_head errq;
	size_t errq_len;
	struct ns_quote *quote;
	struct list_head all_link; /* in the stack's list of sockets (/proc/net) */
	/* options */
	bool v6only, reuseaddr, reuseport, keepalive, nodelay, broadcast, oobinline, cork;
	bool no_check;			  /* SO_NO_CHECK: kept (UDP checksums are always sent) */
	int keepidle, keepintvl, keepcnt; /* seconds, seconds, probes */
	int linger_onoff, linger_secs;
	int sndbuf, rcvbuf, rcvlowat, priority, maxseg, user_timeout;
	int tos, ttl, tclass, hops;
	bool recverr, recverr6, quickack; /* IP_RECVERR, IPV6_RECVERR */
	/* Kept and read back only: nothing in the stack acts on them (no
	 * control messages, no routing by mark, no free bind). */
	bool rcvbuf_locked, zerocopy, dontroute, rxq_ovfl, inq, freebind, mc_loop, mc6_loop;
	bool recvtos, recvttl, pktinfo, recvpktinfo6, recvtclass6, recvhoplimit6;
	bool origdst, origdst6; /* IP_RECVORIGDSTADDR, IPV6_RECVORIGDSTADDR */
	bool passcred;		/* SO_PASSCRED: kept only */
	struct list_head mcast; /* the groups joined (netstack_mcast.c) */
	unsigned mcast_count;
	int timestamp; /* 0, 1: SO_TIMESTAMP, 2: SO_TIMESTAMPNS */
	/* SIOCGSTAMP's: when the last datagram read without a timestamp
	 * option arrived (has_stamp: one was); TCP: when the latest data did */
	bool has_stamp;
	struct timespec stamp;
	int mark, busy_poll, syncnt, linger2, window_clamp, notsent_lowat, fastopen;
	int defer_accept; /* TCP_DEFER_ACCEPT, as retransmissions */
	int pmtudisc, mc_ttl, mc6_hops, incoming_cpu;
	uint64_t cookie;    /* SO_COOKIE: given at the first ask, never 0 */
	char bound_dev[16]; /* SO_BINDTODEVICE: an interface's name, or "" */
	/* SO_ATTACH_FILTER's program (run on UDP and raw receives; a TCP
	 * socket keeps it only), SO_LOCK_FILTER */
	struct sockfilter *filter;
	bool filter_locked;
	char congestion[16];
	uint64_t rcvtimeo, sndtimeo; /* ns, or SOCK_TIMEO_NONE */
	/* raw sockets: IP_HDRINCL, IPV6_CHECKSUM's offset (-1: none), the
	 * ICMP_FILTER and ICMP6_FILTER bitmaps (a set bit blocks the type) */
	bool hdrincl, addr_bound; /* addr_bound: by bind(), not by connect() */
	int csum_off;
	uint32_t icmp_filter, icmp6_filter[8];
	struct waitq wq;
	pthread_mutex_t rlock, wlock;
};

static inline struct ns_sock *NS(struct socket *s)
{
	return (struct ns_sock *)s;
}

/* --- netstack.c --- */
/* Has lwIP started (the first guest socket)? Before, there is no core lock. */
bool ns_running(void);
void ns_lock(void);
void ns_unlock(void);
/* The task a blocking operation sleeps as (a guest's, or a unit test's). */
struct task *ns_current(void);
/* Set by unit tests for threads that are not guest tasks. */
extern __thread struct task *netstack_test_task;

/* Charge n bytes of ns's buffers to the sandbox's memory account: false
 * when it has no room (nothing charged then). Uncharge gives back at most
 * what ns holds; ns_sock_free gives back the rest. Core lock held. */
bool ns_charge(struct ns_sock *ns, size_t n);
void ns_uncharge(struct ns_sock *ns, size_t n);

/* Sleep on ns's queue until woken (core lock held, dropped while asleep).
 * 0: look again (also when the time ran out: to->none_left is then set),
 * -EAGAIN when there was no time to wait, -ERESTARTSYS or -EINTR. */
int ns_wait(struct ns_sock *ns, struct sock_timeo *to);
void ns_wake(struct ns_sock *ns, unsigned events);
/* A new socket object (not yet a file) of family/type, ops set, in the
 * stack's list (core lock held for both). */
struct ns_sock *ns_sock_new(int family, int type, int protocol);
void ns_sock_free(struct ns_sock *ns);
/* Every socket of the stack (core lock held). */
extern struct list_head ns_all_socks;
/* -errno for an lwIP err_t. */
int ns_errno(int lwip_err);
/* Is the caller capable of cap (a Linux capability number)? */
bool ns_capable(int cap);
/* A connection takes its listener's options, as sk_clone (netstack_opt.c). */
void ns_inherit_opts(struct ns_sock *ns, const struct ns_sock *l);
/* The guest's ifindex of a netif: 1 for the loopback, the host's for an
 * attached interface, 0 for another (netstack.c). */
int ns_ifindex(const struct netif *n);
/* The stack's interface the guest knows by name ("lo", an attached
 * one's), or NULL (core lock held). */
struct netif *ns_netif_by_name(const char *name);
/* Linux's TCP state number of ns (TCP_ESTABLISHED, ...); netstack_proc.c. */
int ns_linux_state(const struct ns_sock *ns);
/* Does the DNS relay (dns_relay.h) run, and is ip one of its addresses? */
bool ns_relay_active(void);
bool ns_relay_has(const ip_addr_t *ip);

/* --- netstack_addr.c --- */
/* Parse a guest address for ns: *ip, *port. -errno as Linux's bind and
 * connect (EINVAL for a short length, EAFNOSUPPORT for the wrong family,
 * ENETUNREACH for a v4-mapped address on an IPV6_V6ONLY socket).
 * *unspec is set for AF_UNSPEC (connect's disconnect). */
int ns_addr_in(const struct ns_sock *ns, const void *addr, int len, ip_addr_t *ip, uint16_t *port,
	       bool *unspec);
/* The same for a destination (connect, sendto): a wildcard address means
 * the loopback, as on Linux. */
int ns_addr_dest(const struct ns_sock *ns, const void *addr, int len, ip_addr_t *ip, uint16_t *port,
		 bool *unspec);
/* The source address the stack would give a packet to dst, and the
 * interface it leaves by (core lock held). */
bool ns_route_source(const struct ns_sock *ns, const ip_addr_t *dst, ip_addr_t *src,
		     struct netif **out);
/* A send's destination, m->name, if it names one (*to_addr; AF_UNSPEC
 * names none): ns_addr_dest's checks. */
int ns_msg_dest(const struct ns_sock *ns, const struct sock_msg *m, ip_addr_t *ip, uint16_t *port,
		bool *to_addr);
/* The guest's form of ip:port for ns's family (SOCK_ADDR_MAX bytes). */
int ns_addr_out(const struct ns_sock *ns, const ip_addr_t *ip, uint16_t port, void *out);
/* Is ip one of the stack's own addresses (or a wildcard)? (core lock held) */
bool ns_addr_local(const ip_addr_t *ip);
/* Is ip a broadcast address of the stack's (core lock held)? (netstack_udp.c) */
bool ns_addr_broadcast(const ip_addr_t *ip);
/* May the caller bind port (net.ipv4.ip_unprivileged_port_start)? */
bool ns_port_allowed(uint16_t port);
/* Bind ns's pcb to ip:port (core lock held): the checks bind and an
 * implicit bind share. */
int ns_bind_locked(struct ns_sock *ns, const ip_addr_t *ip, uint16_t port);
/* The pcb's type for ns: v4, v6 only, or both (dual stack). */
uint8_t ns_ip_type(const struct ns_sock *ns);
/* The bind and getname ops of TCP and UDP sockets. */
int ns_bind_op(struct socket *s, const void *addr, int len);
int ns_getname(struct socket *s, void *addr, bool peer);

/* --- netstack_port.c --- */
/* Would Linux refuse ns (a TCP socket) ip:port, held by another socket
 * (core lock held)? Port 0 (any free one) never conflicts. */
bool ns_tcp_port_conflict(const struct ns_sock *ns, const ip_addr_t *ip, uint16_t port);

/* --- netstack_opt.c --- */
int ns_setsockopt(struct socket *s, int level, int name, const void *val, unsigned len);
int ns_getsockopt(struct socket *s, int level, int name, void *val, unsigned *len);
/* Give a new pcb the socket's options (core lock held). */
void ns_apply_opts(struct ns_sock *ns);
/* A send's IP_TTL/IP_TOS (IPV6_HOPLIMIT/IPV6_TCLASS) control messages,
 * set on the pcb for one send; ns_apply_opts puts the socket's back. */
void ns_apply_msg_opts(struct ns_sock *ns, const struct scm *scm);
/* Take the pending error: -errno or 0 (core lock held). */
int ns_take_error(struct ns_sock *ns);

/* --- netstack_tcp.c, netstack_udp.c --- */
/* [0]: AF_INET, [1]: AF_INET6 */
extern const struct sock_ops ns_tcp_ops[2], ns_udp_ops[2];
int ns_tcp_new_pcb(struct ns_sock *ns);
int ns_udp_new_pcb(struct ns_sock *ns);
/* Datagram sockets (UDP and ICMP echo) share their receive side. */
void ns_dgram_queue(struct ns_sock *ns, struct pbuf *p, const ip_addr_t *addr, uint16_t port);
/* Queue p with the addresses and header fields of meta, whatever the
 * receive buffer holds (the caller's check), charging the sandbox's memory
 * (dropped without room). ns_dgram_cost: what p counts for in rx_len. */
void ns_dgram_add(struct ns_sock *ns, struct pbuf *p, const struct ns_dgram *meta);
size_t ns_dgram_cost(const struct pbuf *p);
void ns_dgram_flush(struct ns_sock *ns);
long ns_dgram_recvmsg(struct socket *s, struct sock_msg *m);
int ns_dgram_shutdown(struct socket *s, int how);
unsigned ns_dgram_poll(struct socket *s, struct poll_table *pt);
long ns_dgram_inq(struct socket *s);
int ns_dgram_listen(struct socket *s, int backlog);
int ns_dgram_accept(struct socket *s, bool nonblock, struct socket **out);
/* --- netstack_mcast.c --- */
/* IP_ADD_MEMBERSHIP, IP_DROP_MEMBERSHIP, IPV6_ADD_MEMBERSHIP and
 * IPV6_DROP_MEMBERSHIP (takes the core lock). */
int ns_mcast_membership(struct ns_sock *ns, int level, int name, const void *val, unsigned len);
/* The socket's end: it leaves its groups (core lock held). */
void ns_mcast_release(struct ns_sock *ns);

/* --- netstack_filter.c --- */
/* ns's socket filter on the packet at data (len bytes, from the header
 * the socket kind starts at) arriving now: how many bytes to keep, at
 * least cap; 0 drops it. From lwIP's input, core lock held. */
size_t ns_filter_run(const struct ns_sock *ns, const unsigned char *data, size_t len, size_t cap);

/* SIOCGSTAMP, SIOCGSTAMPNS of every socket of the stack. */
long ns_ioctl(struct socket *s, unsigned long cmd, void *arg);
/* A control message the stack made for m's receiver. */
void ns_put_cmsg(struct scm *scm, int level, int type, const void *data, size_t len);

/* --- netstack_errq.c: IP_RECVERR's queue (core lock held but for recv) --- */
struct ns_quote;
struct ns_icmp_err;
/* A datagram of len bytes at data goes to dst:dport (its start is kept
 * when the queue is on). */
void ns_errq_note_send(struct ns_sock *ns, const ip_addr_t *dst, uint16_t dport, const void *data,
		       size_t len);
void ns_errq_queue(struct ns_sock *ns, const struct ns_icmp_err *e);
void ns_errq_flush(struct ns_sock *ns);
/* At the socket's end: the queue and the kept datagram. */
void ns_errq_release(struct ns_sock *ns);
/* recvmsg(MSG_ERRQUEUE): the oldest error, or EAGAIN (takes the lock). */
long ns_errq_recv(struct ns_sock *ns, struct sock_msg *m);

/* --- netstack_ping.c: ICMP echo sockets (SOCK_DGRAM, IPPROTO_ICMP/ICMPV6) --- */
extern const struct sock_ops ns_ping_ops[2];
/* 0 when the caller's groups are in net.ipv4.ping_group_range, -EACCES. */
int ns_ping_allowed(void);
/* A new ping socket joins the list that identifiers are unique in (core
 * lock held). */
void ns_ping_track(struct ns_sock *ns);

/* --- netstack_raw.c: raw IP sockets (SOCK_RAW) --- */
extern const struct sock_ops ns_raw_ops[2];
/* A new raw socket: its pcb, which receives for it (core lock held). */
int ns_raw_init(struct ns_sock *ns);

/* --- netstack_icmp.c (core lock held) --- */
void ns_icmp_init(void);
/* An ICMP error that quotes a datagram: the errno it means, whether it is
 * a hard one (icmp_err_convert's fatal), the type, code and info (an MTU),
 * who sent it, the datagram's destination, ports and UDP length, and the
 * quoted bytes past the UDP header. */
struct ns_icmp_err {
	int err;
	bool hard;
	uint8_t type, code;
	uint32_t info;
	ip_addr_t offender, src, dst;
	uint16_t sport, dport, udp_len;
	const unsigned char *data;
	size_t len;
};
void ns_icmp_track(struct ns_sock *ns);
void ns_icmp_untrack(struct ns_sock *ns);

#endif
