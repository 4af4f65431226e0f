/* The SIOCGIF* ioctls, from the sandbox's network configuration (ifioctl.h). */
#include "config.h"
#include "sentry/net/ifioctl.h"
#include "sentry/net/net.h"
#include "sentry/kernel/kernel.h"
#include "sentry/kernel/task.h"
#include "sentry/mm/mm.h"
#include "lib/util.h"

#include <errno.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>

bool ifioctl_is(unsigned long cmd)
{
	switch (cmd) {
	case SIOCGIFCONF:
	case SIOCGIFADDR:
	case SIOCGIFFLAGS:
	case SIOCGIFINDEX:
	case SIOCGIFNAME:
	case SIOCGIFMTU:
	case SIOCGIFHWADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR:
	case SIOCGIFTXQLEN:
		return true;
	default:
		return false;
	}
}

static const struct net_config *config(struct task *t)
{
	static const struct net_config none;

	return t->k->net ? &t->k->net->cfg : &none;
}

static const struct net_iface *by_name(const struct net_config *c, const char *name)
{
	for (size_t i = 0; i < c->nifs; i++)
		if (strcmp(c->ifs[i].name, name) == 0)
			return &c->ifs[i];
	return NULL;
}

static const struct net_iface_addr *first_v4(const struct net_iface *nif)
{
	for (int i = 0; i < nif->naddrs; i++)
		if (nif->addrs[i].family == AF_INET)
			return &nif->addrs[i];
	return NULL;
}

static void put_in(struct sockaddr *sa, const uint8_t *addr)
{
	struct sockaddr_in in = {.sin_family = AF_INET};

	memcpy(&in.sin_addr, addr, 4);
	memcpy(sa, &in, sizeof(in));
}

/* SIOCGIFCONF: one struct ifreq per IPv4 address, as Linux's inet_gifconf. */
static long ifconf(struct task *t, uint64_t arg)
{
	const struct net_config *c = config(t);
	struct ifconf ifc;
	uint64_t buf;
	int used = 0;

	if (mm_copy_in(t->mm, &ifc, arg, sizeof(ifc)) < 0)
		return -EFAULT;
	buf = (uint64_t)(uintptr_t)ifc.ifc_buf;
	for (size_t i = 0; i < c->nifs; i++)
		for (int j = 0; j < c->ifs[i].naddrs; j++) {
			struct ifreq r;

			if (c->ifs[i].addrs[j].family != AF_INET)
				continue;
			if (buf) {
				if (ifc.ifc_len - used < (int)sizeof(r))
					goto done;
				memset(&r, 0, sizeof(r));
				memcpy(r.ifr_name, c->ifs[i].name, IFNAMSIZ - 1);
				put_in(&r.ifr_addr, c->ifs[i].addrs[j].addr);
				if (mm_copy_out(t->mm, buf + (uint64_t)used, &r, sizeof(r)) < 0)
					return -EFAULT;
			}
			used += (int)sizeof(r);
		}
done:
	ifc.ifc_len = used;
	return mm_copy_out(t->mm, arg, &ifc, sizeof(ifc)) < 0 ? -EFAULT : 0;
}

long ifioctl(struct task *t, unsigned long cmd, uint64_t arg)
{
	const struct net_config *c = config(t);
	const struct net_iface *nif = NULL;
	const struct net_iface_addr *a;
	struct ifreq r;

	if (cmd == SIOCGIFCONF)
		return ifconf(t, arg);
	if (mm_copy_in(t->mm, &r, arg, sizeof(r)) < 0)
		return -EFAULT;
	r.ifr_name[IFNAMSIZ - 1] = '\0';
	if (cmd == SIOCGIFNAME) {
		for (size_t i = 0; i < c->nifs && !nif; i++)
			if (c->ifs[i].index == r.ifr_ifindex)
				nif = &c->ifs[i];
		if (!nif)
			return -ENODEV;
		memset(r.ifr_name, 0, IFNAMSIZ);
		memcpy(r.ifr_name, nif->name, IFNAMSIZ - 1);
		return mm_copy_out(t->mm, arg, &r, sizeof(r)) < 0 ? -EFAULT : 0;
	}
	nif = by_name(c, r.ifr_name);
	if (!nif)
		return -ENODEV;
	switch (cmd) {
	case SIOCGIFFLAGS:
		r.ifr_flags = (short)nif->flags;
		break;
	case SIOCGIFINDEX:
		r.ifr_ifindex = nif->index;
		break;
	case SIOCGIFMTU:
		r.ifr_mtu = (int)nif->mtu;
		break;
	case SIOCGIFTXQLEN:
		r.ifr_qlen = 1000; /* Linux's default (the configuration does not keep it) */
		break;
	case SIOCGIFHWADDR:
		memset(&r.ifr_hwaddr, 0, sizeof(r.ifr_hwaddr));
		r.ifr_hwaddr.sa_family = nif->loopback ? ARPHRD_LOOPBACK : ARPHRD_ETHER;
		memcpy(r.ifr_hwaddr.sa_data, nif->mac, 6);
		break;
	case SIOCGIFADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR: {
		uint8_t v[4];
		uint32_t mask;

		a = first_v4(nif);
		if (!a)
			return -EADDRNOTAVAIL;
		mask = a->prefixlen ? ~0u << (32 - a->prefixlen) : 0;
		for (int i = 0; i < 4; i++) {
			uint8_t m = (uint8_t)(mask >> (24 - 8 * i));
			v[i] = cmd == SIOCGIFADDR      ? a->addr[i]
			       : cmd == SIOCGIFNETMASK ? m
						       : (uint8_t)(a->addr[i] | (uint8_t)~m);
		}
		if (cmd == SIOCGIFBRDADDR && nif->loopback)
			memset(v, 0, 4);
		put_in(&r.ifr_addr, v);
		break;
	}
	default:
		return -ENOTTY;
	}
	return mm_copy_out(t->mm, arg, &r, sizeof(r)) < 0 ? -EFAULT : 0;
}
