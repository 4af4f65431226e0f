/*
 * Guest test: the interfaces as programs see them, through glibc's
 * getifaddrs (an AF_NETLINK route dump), a raw RTM_GETLINK dump, and the
 * SIOCGIF* ioctls. Only the loopback is printed (the other interfaces
 * depend on where the test runs); the others are only checked for
 * agreement between the three views. Also: the families the sandbox does
 * not offer fail honestly.
 */
#include "netguest.h"

#include <ifaddrs.h>
#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/ioctl.h>

/* The number of RTM_NEWLINK messages of a dump, and whether "lo" was one. */
static int netlink_links(bool *lo)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = 7}};
	static char buf[32768];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), links = 0;
	struct sockaddr_nl me = {.nl_family = AF_NETLINK};
	socklen_t ml = sizeof(me);

	*lo = false;
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &ml) < 0 || me.nl_family != AF_NETLINK)
		return -1;
	if (send(fd, &req, sizeof(req), 0) != sizeof(req))
		return -2;
	for (;;) {
		int n = (int)recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return -3;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != 7)
				return -4;
			if (h->nlmsg_type == NLMSG_DONE) {
				close(fd);
				return links;
			}
			if (h->nlmsg_type != RTM_NEWLINK)
				return -5;
			struct ifinfomsg *ifi = NLMSG_DATA(h);
			int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
			for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (a->rta_type == IFLA_IFNAME && strcmp(RTA_DATA(a), "lo") == 0)
					*lo = true;
			links++;
		}
	}
}

int main(void)
{
	struct ifaddrs *ifa, *i;
	struct ifreq r;
	struct ifconf ifc;
	struct ifreq reqs[64];
	bool lo_v4 = false, lo_up = false, lo_nl = false;
	int links, fd, n_ifconf = 0, lo_ifconf = 0;
	unsigned index;

	CHECK_EQ(getifaddrs(&ifa), 0, "getifaddrs");
	for (i = ifa; i; i = i->ifa_next) {
		if (strcmp(i->ifa_name, "lo") != 0 || !i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			struct sockaddr_in *a = (struct sockaddr_in *)i->ifa_addr;
			struct sockaddr_in *m = (struct sockaddr_in *)i->ifa_netmask;
			lo_v4 = a->sin_addr.s_addr == htonl(INADDR_LOOPBACK) && m &&
				m->sin_addr.s_addr == htonl(0xff000000);
			lo_up = (i->ifa_flags & (IFF_UP | IFF_LOOPBACK)) == (IFF_UP | IFF_LOOPBACK);
		}
	}
	freeifaddrs(ifa);
	CHECK(lo_v4, "getifaddrs: lo has 127.0.0.1/8");
	CHECK(lo_up, "getifaddrs: lo is up and a loopback");

	links = netlink_links(&lo_nl);
	CHECK(links >= 1, "an RTM_GETLINK dump lists the interfaces");
	CHECK(lo_nl, "... lo among them");
	index = if_nametoindex("lo");
	CHECK(index > 0, "if_nametoindex(lo)");

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) /* the user-space stack may be absent: any socket will do */
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	memset(&r, 0, sizeof(r));
	strcpy(r.ifr_name, "lo");
	CHECK_EQ(ioctl(fd, SIOCGIFFLAGS, &r), 0, "SIOCGIFFLAGS lo");
	CHECK((r.ifr_flags & (IFF_UP | IFF_LOOPBACK)) == (IFF_UP | IFF_LOOPBACK), "... up, loopback");
	CHECK_EQ(ioctl(fd, SIOCGIFINDEX, &r), 0, "SIOCGIFINDEX lo");
	CHECK_EQ((unsigned)r.ifr_ifindex, index, "... the index if_nametoindex gave");
	memset(r.ifr_name, 0, sizeof(r.ifr_name));
	CHECK_EQ(ioctl(fd, SIOCGIFNAME, &r), 0, "SIOCGIFNAME of that index");
	CHECK(strcmp(r.ifr_name, "lo") == 0, "... is lo");
	CHECK_EQ(ioctl(fd, SIOCGIFADDR, &r), 0, "SIOCGIFADDR lo");
	CHECK(((struct sockaddr_in *)&r.ifr_addr)->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	      "... 127.0.0.1");
	CHECK_EQ(ioctl(fd, SIOCGIFNETMASK, &r), 0, "SIOCGIFNETMASK lo");
	CHECK(((struct sockaddr_in *)&r.ifr_addr)->sin_addr.s_addr == htonl(0xff000000),
	      "... 255.0.0.0");
	CHECK_EQ(ioctl(fd, SIOCGIFMTU, &r), 0, "SIOCGIFMTU lo");
	CHECK(r.ifr_mtu > 0, "... some MTU");
	CHECK_EQ(ioctl(fd, SIOCGIFHWADDR, &r), 0, "SIOCGIFHWADDR lo");
	CHECK_EQ(r.ifr_hwaddr.sa_family, 772 /* ARPHRD_LOOPBACK */, "... a loopback's");
	strcpy(r.ifr_name, "nosuchif0");
	CHECK_ERRNO(ioctl(fd, SIOCGIFFLAGS, &r), ENODEV, "SIOCGIFFLAGS of no interface");

	ifc.ifc_len = sizeof(reqs);
	ifc.ifc_req = reqs;
	CHECK_EQ(ioctl(fd, SIOCGIFCONF, &ifc), 0, "SIOCGIFCONF");
	n_ifconf = ifc.ifc_len / (int)sizeof(struct ifreq);
	for (int k = 0; k < n_ifconf; k++)
		if (strcmp(reqs[k].ifr_name, "lo") == 0 &&
		    ((struct sockaddr_in *)&reqs[k].ifr_addr)->sin_addr.s_addr ==
			    htonl(INADDR_LOOPBACK))
			lo_ifconf++;
	CHECK_EQ(lo_ifconf, 1, "... lists lo with 127.0.0.1 once");
	ifc.ifc_req = NULL;
	ifc.ifc_len = 0;
	CHECK_EQ(ioctl(fd, SIOCGIFCONF, &ifc), 0, "SIOCGIFCONF without a buffer");
	CHECK_EQ(ifc.ifc_len, n_ifconf * (int)sizeof(struct ifreq), "... says the room needed");
	close(fd);

	/* Families the sandbox does not offer. */
	CHECK_ERRNO(socket(AF_NETLINK, SOCK_RAW, 32 /* MAX_LINKS */), EPROTONOSUPPORT,
		    "a netlink protocol that does not exist");
	errno = 0;
	fd = socket(AF_BLUETOOTH, SOCK_STREAM, 0);
	CHECK(fd < 0 && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT || errno == EPERM),
	      "AF_BLUETOOTH fails");
	return GUEST_DONE();
}
