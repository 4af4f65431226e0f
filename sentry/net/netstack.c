/*
 * The user-space TCP/IP stack (netstack.h): lwIP with its own thread,
 * a loopback interface of ours, and the guest's AF_INET/AF_INET6 sockets
 * over its raw API.
 *
 * lwIP keeps its state in globals: there is one stack per process (one
 * sentry per sandbox). netstack_start() does what needs the host before
 * the sentry is confined (the interfaces, lwip_link.c); lwIP's thread and
 * the interfaces' readers start with the first guest socket, after the
 * confinement (which needs a single-threaded process), and run under the
 * sentry's seccomp filter. lwIP's thread is never stopped: netstack_stop()
 * takes the interfaces down and closes what the stack holds on the host.
 */
#include "config.h"
#include "sentry/net/netstack.h"
#include "sentry/net/netstack_priv.h"
#include "sentry/net/lwip_link.h"
#include "sentry/net/dns_relay.h"
#include "sentry/net/iface.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/signal.h" /* ERESTARTSYS */
#include "sentry/kernel/task.h"
#include "sentry/kernel/kernel.h"
#include "sentry/mm/memfile.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <lwip/init.h>
#include <lwip/ip.h>
#include <lwip/netif.h>
#include <lwip/sys.h>
#include <lwip/tcpip.h>

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define KCAP_NET_RAW	  13
#define LINUX_IPPROTO_MAX 263 /* IPPROTO_MPTCP + 1 */

__thread struct task *netstack_test_task;
struct list_head ns_all_socks = LIST_HEAD_INIT(ns_all_socks);

static struct {
	pthread_mutex_t lock; /* start and stop */
	bool configured;      /* netstack_start ran */
	bool running;	      /* lwIP's thread is up */
	struct netif lo;
	struct lwip_links *links; /* the attached interfaces (lwip_link.c) */
	struct memacct *acct;	  /* the sandbox's memory account, or NULL */
	struct dns_relay *relay;  /* to a nameserver on the namespace's lo, or NULL */
} stack = {.lock = PTHREAD_MUTEX_INITIALIZER};

void ns_lock(void)
{
	LOCK_TCPIP_CORE();
}

/* What a socket sent to the loopback arrives before the call returns, as in
 * Linux (whose loopback hands it to the receiver in the sender's softirq):
 * lwIP would queue it for its own thread, so a recv right after a send to
 * oneself could find nothing yet. */
void ns_unlock(void)
{
	if (stack.lo.loop_first)
		netif_poll(&stack.lo);
	UNLOCK_TCPIP_CORE();
}

/* --- the loopback ------------------------------------------------------------- */

/* Everything the loopback sends comes back in (lwIP queues it for its
 * thread, which hands it to ip_input). */
static err_t lo_output4(struct netif *n, struct pbuf *p, const ip4_addr_t *dst)
{
	return netif_loop_output(n, p);
}

static err_t lo_output6(struct netif *n, struct pbuf *p, const ip6_addr_t *dst)
{
	return netif_loop_output(n, p);
}

int ns_ifindex(const struct netif *n)
{
	if (!n)
		return 0;
	if (n == &stack.lo)
		return 1;
	return lwip_link_ifindex(n);
}

struct netif *ns_netif_by_name(const char *name)
{
	struct netif *n;

	if (strcmp(name, "lo") == 0)
		return &stack.lo;
	NETIF_FOREACH(n)
	{
		const char *ln = lwip_link_name(n);
		if (ln && strcmp(ln, name) == 0)
			return n;
	}
	return NULL;
}

static err_t lo_init(struct netif *n)
{
	n->name[0] = 'l';
	n->name[1] = 'o';
	n->output = lo_output4;
	n->output_ip6 = lo_output6;
	n->mtu = 65535; /* lwIP's largest (Linux's lo has 65536) */
	n->flags = 0;
	return ERR_OK;
}

/* 127.0.0.1/8 and ::1 (core lock held). */
static void lo_add(void)
{
	ip4_addr_t a, m, gw;
	ip6_addr_t a6;
	s8_t idx;

	IP4_ADDR(&a, 127, 0, 0, 1);
	IP4_ADDR(&m, 255, 0, 0, 0);
	ip4_addr_set_zero(&gw);
	netif_add(&stack.lo, &a, &m, &gw, NULL, lo_init, ip_input);
	ip6_addr_set_loopback(&a6);
	if (netif_add_ip6_address(&stack.lo, &a6, &idx) == ERR_OK)
		netif_ip6_addr_set_state(&stack.lo, idx, IP6_ADDR_PREFERRED);
	netif_set_link_up(&stack.lo);
	netif_set_up(&stack.lo);
}

/* --- start and stop ------------------------------------------------------------- */

static void tcpip_ready(void *arg)
{
	sys_sem_t *sem = arg;

	lo_add();
	if (stack.relay)
		dns_relay_attach(stack.relay);
	ns_icmp_init();
	sys_sem_signal(sem);
}

/* lwIP's thread, the loopback and the attached interfaces, once. */
static int stack_run(void)
{
	sys_sem_t sem;
	int ret = 0;

	pthread_mutex_lock(&stack.lock);
	if (!stack.running) {
		if (sys_sem_new(&sem, 0) != ERR_OK) {
			ret = -ENOMEM;
		} else {
			tcpip_init(tcpip_ready, &sem);
			sys_sem_wait(&sem);
			sys_sem_free(&sem);
			__atomic_store_n(&stack.running, true, __ATOMIC_RELEASE);
			if (stack.links)
				lwip_links_run(stack.links);
			if (stack.relay)
				dns_relay_run(stack.relay);
		}
	}
	pthread_mutex_unlock(&stack.lock);
	return ret;
}

int netstack_start(struct kernel *k, const struct net_config *cfg, bool attach,
		   struct dns_relay *relay, struct rung_error *err)
{
	int ret = 0;

	pthread_mutex_lock(&stack.lock);
	if (stack.configured) {
		pthread_mutex_unlock(&stack.lock);
		dns_relay_close(relay, false);
		return rung_error_make(err, EBUSY, "the network stack runs already");
	}
	if (attach && cfg)
		ret = lwip_links_open(cfg, &stack.links, err);
	if (ret == 0) {
		stack.configured = true;
		stack.acct = k && k->mf ? &k->mf->acct : NULL;
		stack.relay = relay;
	} else {
		dns_relay_close(relay, false);
	}
	pthread_mutex_unlock(&stack.lock);
	return ret;
}

void netstack_stop(struct kernel *k)
{
	pthread_mutex_lock(&stack.lock);
	if (stack.links) {
		lwip_links_close(stack.links, stack.running);
		stack.links = NULL;
	}
	if (stack.relay) {
		dns_relay_close(stack.relay, stack.running);
		stack.relay = NULL;
	}
	stack.configured = false;
	stack.acct = NULL;
	pthread_mutex_unlock(&stack.lock);
}

/* --- memory ------------------------------------------------------------------------- */

bool ns_charge(struct ns_sock *ns, size_t n)
{
	if (stack.acct && memacct_charge(stack.acct, n) < 0)
		return false;
	ns->charged += n;
	return true;
}

void ns_uncharge(struct ns_sock *ns, size_t n)
{
	n = MIN(n, ns->charged);
	ns->charged -= n;
	if (stack.acct)
		memacct_uncharge(stack.acct, n);
}

bool ns_relay_has(const ip_addr_t *ip)
{
	return dns_relay_has(stack.relay, ip);
}

bool ns_relay_active(void)
{
	return stack.relay != NULL;
}

bool ns_running(void)
{
	return __atomic_load_n(&stack.running, __ATOMIC_ACQUIRE);
}

/* --- waiting ------------------------------------------------------------------------ */

struct task *ns_current(void)
{
	struct task *t = current_task();

	return t ? t : netstack_test_task;
}

int ns_wait(struct ns_sock *ns, struct sock_timeo *to)
{
	struct task *t = ns_current();
	struct waiter w = {0};
	uint32_t snap;
	int ret;

	if (to->none_left)
		return -EAGAIN;
	if (!t)
		return -EINTR;
	snap = waiter_prepare(&ns->wq, &w, t);
	ns_unlock();
	ret = task_block(t, snap, to->deadline);
	waiter_finish(&ns->wq, &w);
	ns_lock();
	return sock_timeo_woken(to, ret);
}

void ns_wake(struct ns_sock *ns, unsigned events)
{
	waitq_wake_events(&ns->wq, events);
}

/* --- sockets ---------------------------------------------------------------------------- */

struct ns_sock *ns_sock_new(int family, int type, int protocol)
{
	struct ns_sock *ns = xzalloc(sizeof(*ns));
	int fi = family == AF_INET6;

	ns->sock.ops = type == SOCK_STREAM ? &ns_tcp_ops[fi] : &ns_udp_ops[fi];
	ns->sock.type = type;
	ns->family = family;
	ns->protocol = protocol;
	ns->state = NS_CLOSED;
	list_init(&ns->dgrams);
	list_init(&ns->accq);
	list_init(&ns->acc_link);
	list_init(&ns->udp_link);
	list_init(&ns->errq);
	list_init(&ns->mcast);
	list_add_tail(&ns->all_link, &ns_all_socks);
	ns->sndbuf = type == SOCK_STREAM ? NS_TCP_SNDBUF_DEFAULT : NS_UDP_BUF_DEFAULT;
	ns->rcvbuf = type == SOCK_STREAM ? NS_TCP_RCVBUF_DEFAULT : NS_UDP_BUF_DEFAULT;
	ns->rcvlowat = 1;
	ns->keepidle = 7200;
	ns->keepintvl = 75;
	ns->keepcnt = 9;
	ns->ttl = -1;
	ns->hops = -1;
	ns->quickack = true;
	ns->syncnt = 6;
	ns->linger2 = 60;
	ns->pmtudisc = IP_PMTUDISC_WANT;
	ns->mc_ttl = ns->mc6_hops = 1;
	ns->mc_loop = ns->mc6_loop = true;
	ns->incoming_cpu = -1;
	memcpy(ns->congestion, "cubic", 6);
	ns->rcvtimeo = ns->sndtimeo = SOCK_TIMEO_NONE;
	waitq_init(&ns->wq);
	pthread_mutex_init(&ns->rlock, NULL);
	pthread_mutex_init(&ns->wlock, NULL);
	return ns;
}

void ns_sock_free(struct ns_sock *ns)
{
	ns_errq_release(ns);
	ns_mcast_release(ns);
	if (ns->filter)
		sockfilter_free(ns->filter);
	ns_uncharge(ns, ns->charged);
	list_del(&ns->all_link);
	pthread_mutex_destroy(&ns->rlock);
	pthread_mutex_destroy(&ns->wlock);
	free(ns);
}

int netstack_socket_create(struct kernel *k, int family, int type, int protocol,
			   struct socket **out)
{
	struct ns_sock *ns;
	int ret;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	switch (type) {
	case SOCK_STREAM:
		if (protocol != 0 && protocol != IPPROTO_TCP)
			return -EPROTONOSUPPORT;
		protocol = IPPROTO_TCP;
		break;
	case SOCK_DGRAM:
		if (protocol == (family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6)) {
			ret = ns_ping_allowed();
			if (ret < 0)
				return ret;
			break;
		}
		if (protocol != 0 && protocol != IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		protocol = IPPROTO_UDP;
		break;
	case SOCK_RAW:
		/* inet_create: the protocol is checked first, then CAP_NET_RAW;
		 * protocol 0 names no protocol for a raw socket. */
		if (protocol < 0 || protocol >= LINUX_IPPROTO_MAX)
			return -EINVAL;
		if (!ns_capable(KCAP_NET_RAW))
			return -EPERM;
		if (protocol == 0)
			return -EPROTONOSUPPORT;
		break;
	case SOCK_SEQPACKET:
	case SOCK_RDM:
	case SOCK_PACKET:
	case SOCK_DCCP:
		return -ESOCKTNOSUPPORT;
	default:
		return -EINVAL;
	}
	ret = stack_run();
	if (ret < 0)
		return ret;
	ns_lock();
	ns = ns_sock_new(family, type, protocol);
	if (type == SOCK_DGRAM && protocol != IPPROTO_UDP) {
		ns->sock.ops = &ns_ping_ops[family == AF_INET6];
		ns_ping_track(ns);
	} else if (type == SOCK_RAW) {
		ns->sock.ops = &ns_raw_ops[family == AF_INET6];
		ret = ns_raw_init(ns);
		if (ret < 0) {
			ns_sock_free(ns);
			ns_unlock();
			return ret;
		}
	}
	ns_unlock();
	*out = &ns->sock;
	return 0;
}

/* --- shared helpers --------------------------------------------------------------------- */

int ns_errno(int e)
{
	switch (e) {
	case ERR_OK:
		return 0;
	case ERR_MEM:
	case ERR_BUF:
		return -ENOBUFS;
	case ERR_TIMEOUT:
		return -ETIMEDOUT;
	case ERR_RTE:
		return -ENETUNREACH;
	case ERR_INPROGRESS:
		return -EINPROGRESS;
	case ERR_VAL:
	case ERR_ARG:
		return -EINVAL;
	case ERR_WOULDBLOCK:
		return -EAGAIN;
	case ERR_USE:
		return -EADDRINUSE;
	case ERR_ALREADY:
		return -EALREADY;
	case ERR_ISCONN:
		return -EISCONN;
	case ERR_CONN:
		return -ENOTCONN;
	case ERR_IF:
		return -ENETDOWN;
	case ERR_ABRT:
		return -ECONNABORTED;
	case ERR_RST:
		return -ECONNRESET;
	case ERR_CLSD:
		return -ENOTCONN;
	default:
		return -EIO;
	}
}

bool ns_capable(int cap)
{
	struct task *t = current_task();

	return t ? creds_capable(&t->creds, cap) : true;
}
