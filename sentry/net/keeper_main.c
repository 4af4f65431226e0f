/*
 * rung netkeep: the keeper of a network namespace's addresses (keeper.h).
 *
 * It copies the RTM_NEWADDR messages of its interfaces and the
 * RTM_NEWROUTE messages of the routes through them from the kernel's
 * dumps, as they are (the kernel takes back what it gave, lifetimes and
 * flags included), and later sends them as requests. Routes the kernel
 * makes itself with an address (the prefix route, the local table) come
 * back with it and are not copied. A request for what is still there
 * (EEXIST) is fine; an interface that has gone meanwhile (ENODEV) too.
 */
#include "config.h"
#include "sentry/net/keeper.h"
#include "sentry/net/rtnl.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define SENTRY_FD 3
/* A route through another copied route may need that one first. */
#define ROUTE_PASSES 3

/* Copied messages, one after another, each made a request. */
struct kept {
	char *buf;
	size_t len;
	unsigned n;
};

struct snapshot {
	const int *ifs;
	size_t nifs;
	struct kept addrs, routes;
};

static bool watched(const struct snapshot *s, int index)
{
	for (size_t i = 0; i < s->nifs; i++)
		if (s->ifs[i] == index)
			return true;
	return false;
}

/* A copy of h as a request of type to create what it describes. */
static struct nlmsghdr *keep(struct kept *k, const struct nlmsghdr *h, int type)
{
	size_t len = NLMSG_ALIGN(h->nlmsg_len);
	struct nlmsghdr *c;

	k->buf = xrealloc(k->buf, k->len + len);
	c = (struct nlmsghdr *)(k->buf + k->len);
	memcpy(c, h, h->nlmsg_len);
	c->nlmsg_type = (unsigned short)type;
	c->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	c->nlmsg_seq = ++k->n;
	c->nlmsg_pid = 0;
	k->len += len;
	return c;
}

static void on_addr(void *arg, const struct nlmsghdr *h)
{
	struct snapshot *s = arg;
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);

	if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6) ||
	    !watched(s, (int)ifa->ifa_index))
		return;
	keep(&s->addrs, h, RTM_NEWADDR);
}

/* Does a route go through a watched interface (its RTA_OIF, or a
 * nexthop of RTA_MULTIPATH)? With fix, also clear the flags the kernel
 * reports but refuses in a request (dead, link down, offloaded). */
static bool route_watched(const struct snapshot *s, struct rtmsg *rtm, int len, bool fix)
{
	bool hit = false;

	if (fix)
		rtm->rtm_flags &= RTNH_F_ONLINK;
	for (struct rtattr *a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= 4) {
			int oif;
			memcpy(&oif, RTA_DATA(a), 4);
			hit |= watched(s, oif);
		} else if (a->rta_type == RTA_MULTIPATH) {
			int left = (int)RTA_PAYLOAD(a);
			for (struct rtnexthop *nh = RTA_DATA(a); RTNH_OK(nh, left);
			     left -= (int)RTNH_ALIGN(nh->rtnh_len), nh = RTNH_NEXT(nh)) {
				hit |= watched(s, nh->rtnh_ifindex);
				if (fix)
					nh->rtnh_flags &= RTNH_F_ONLINK;
			}
		}
	}
	return hit;
}

static void on_route(void *arg, const struct nlmsghdr *h)
{
	struct snapshot *s = arg;
	struct rtmsg *rtm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));
	unsigned table = rtm->rtm_table;
	struct nlmsghdr *c;

	if (h->nlmsg_type != RTM_NEWROUTE || len < 0 ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_type != RTN_UNICAST || rtm->rtm_protocol == RTPROT_KERNEL ||
	    (rtm->rtm_flags & RTM_F_CLONED))
		return;
	for (const struct rtattr *a = RTM_RTA(rtm); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_TABLE && RTA_PAYLOAD(a) >= 4)
			memcpy(&table, RTA_DATA(a), 4);
	len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));
	if (table == RT_TABLE_LOCAL || !route_watched(s, rtm, len, false))
		return;
	c = keep(&s->routes, h, RTM_NEWROUTE);
	route_watched(s, NLMSG_DATA(c), len, true);
}

static int take_snapshot(int fd, struct snapshot *s, struct rung_error *err)
{
	int ret = rtnl_dump(fd, RTM_GETADDR, AF_UNSPEC, on_addr, s);

	if (ret == 0)
		ret = rtnl_dump(fd, RTM_GETROUTE, AF_UNSPEC, on_route, s);
	if (ret < 0)
		return rung_error_make(err, -ret, "read the namespace's addresses and routes");
	return 0;
}

/* "10.0.0.2/24 on interface 5", for messages about an RTM_NEWADDR request. */
static void addr_name(const struct nlmsghdr *h, char *buf, size_t size)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifa));
	char ip[INET6_ADDRSTRLEN] = "?";

	for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if ((a->rta_type == IFA_LOCAL || (a->rta_type == IFA_ADDRESS && ip[0] == '?')) &&
		    RTA_PAYLOAD(a) >= (ifa->ifa_family == AF_INET ? 4u : 16u))
			inet_ntop(ifa->ifa_family, RTA_DATA(a), ip, sizeof(ip));
	snprintf(buf, size, "%s/%u on interface %u", ip, ifa->ifa_prefixlen, ifa->ifa_index);
}

/* Each request once; *back: how many were missing and are back. */
static void give_addrs(int fd, struct kept *k, unsigned *back)
{
	for (size_t off = 0; off < k->len;) {
		struct nlmsghdr *h = (struct nlmsghdr *)(k->buf + off);
		int ret = rtnl_call(fd, h, 0);
		char name[96];

		off += NLMSG_ALIGN(h->nlmsg_len);
		if (ret == 0) {
			(*back)++;
			continue;
		}
		if (ret == -EEXIST)
			continue;
		addr_name(h, name, sizeof(name));
		if (ret == -ENODEV)
			log_info("netkeep: %s: the interface is gone", name);
		else
			log_warning("netkeep: could not give back the address %s: %s", name,
				    strerror(-ret));
	}
}

/* Passes over the routes until none is added; *back as give_addrs. */
static void give_routes(int fd, struct kept *k, unsigned *back)
{
	bool *done = xzalloc((k->n + 1) * sizeof(*done));
	unsigned failed = 0;
	int last = 0;

	for (int pass = 0; pass < ROUTE_PASSES; pass++) {
		unsigned added = 0, i = 0;

		failed = 0;
		for (size_t off = 0; off < k->len; i++) {
			struct nlmsghdr *h = (struct nlmsghdr *)(k->buf + off);
			int ret;

			off += NLMSG_ALIGN(h->nlmsg_len);
			if (done[i])
				continue;
			ret = rtnl_call(fd, h, 0);
			if (ret == 0 || ret == -EEXIST) {
				done[i] = true;
				added += ret == 0;
				continue;
			}
			failed++;
			last = ret;
		}
		*back += added;
		if (!failed || !added)
			break;
	}
	if (failed && last != -ENODEV)
		log_warning("netkeep: could not give back %u routes: %s", failed, strerror(-last));
	free(done);
}

/* Until the sentry's end is closed (by it, or by its death). */
static void wait_for_the_end(void)
{
	char buf[64];

	for (;;) {
		ssize_t n = read(SENTRY_FD, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EINTR))
			return;
	}
}

/* Out of the sandbox's cgroup, into each file's (cgroup.procs). */
static void move_out(char **files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int fd = open(files[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "0", 1) != 1)
			log_warning("netkeep: could not move to `%s`: %s", files[i],
				    strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

/* What it does not need goes: every capability but CAP_NET_ADMIN. */
static int drop_privileges(struct rung_error *err)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN) < 0 ||
	    capng_apply(CAPNG_SELECT_BOTH) < 0)
		return rung_error_make(err, EPERM, "keep CAP_NET_ADMIN alone");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return rung_error_make(err, errno, "no_new_privs");
	return 0;
}

/* Tell the sentry why it cannot take the interfaces over. */
static int refuse(struct rung_error *err)
{
	char *msg = rung_error_string(err);

	if (write(SENTRY_FD, msg, strlen(msg)) < 0) {
		/* the sentry sees end of file */
	}
	free(msg);
	rung_error_release(err);
	return 1;
}

int net_keeper_main(int argc, char **argv)
{
	static const int quiet[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGTSTP};
	struct rung_error err = {0};
	struct snapshot s = {0};
	char **cgroups = xzalloc((size_t)argc * sizeof(*cgroups));
	int *ifs = xzalloc((size_t)argc * sizeof(*ifs));
	unsigned addrs = 0, routes = 0;
	size_t ncg = 0;
	int fd;

	prctl(PR_SET_NAME, "rung-netkeep", 0, 0, 0);
	/* Its one job comes when the sandbox ends, however: only SIGKILL
	 * ends it before. */
	for (size_t i = 0; i < ARRAY_SIZE(quiet); i++)
		signal(quiet[i], SIG_IGN);
	for (int i = 1; i < argc; i++) {
		char *end;
		long v;

		if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
			v = strtol(argv[++i], &end, 10);
			if (!*end && v >= LOG_LEVEL_ERROR && v <= LOG_LEVEL_DEBUG)
				rung_log_set_level((enum rung_log_level)v);
			continue;
		}
		if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc) {
			cgroups[ncg++] = argv[++i];
			continue;
		}
		v = strtol(argv[i], &end, 10);
		if (*end || v <= 0 || v > INT32_MAX) {
			rung_error_make(&err, EINVAL, "netkeep: `%s` is not an interface index",
					argv[i]);
			return refuse(&err);
		}
		ifs[s.nifs++] = (int)v;
	}
	s.ifs = ifs;
	if (chdir("/") < 0)
		log_debug("netkeep: chdir /: %s", strerror(errno));
	move_out(cgroups, ncg);
	if (drop_privileges(&err) < 0)
		return refuse(&err);
	fd = rtnl_open();
	if (fd < 0) {
		rung_error_make(&err, -fd, "open a route netlink socket");
		return refuse(&err);
	}
	if (take_snapshot(fd, &s, &err) < 0)
		return refuse(&err);
	if (write(SENTRY_FD, "r", 1) != 1)
		return 1; /* the sentry is gone before it removed anything */
	log_debug("netkeep: holding %u addresses and %u routes of %zu interfaces", s.addrs.n,
		  s.routes.n, s.nifs);
	wait_for_the_end();
	give_addrs(fd, &s.addrs, &addrs);
	give_routes(fd, &s.routes, &routes);
	if (addrs || routes)
		log_info("netkeep: gave the network namespace back %u addresses and %u routes",
			 addrs, routes);
	return 0;
}
