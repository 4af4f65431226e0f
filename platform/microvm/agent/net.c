/*
 * rung-agent: the guest's network. With user-mode networking the host gives
 * the VM one virtio-net NIC behind QEMU's slirp, whose addresses are fixed:
 * the guest is 10.0.2.15/24, the gateway 10.0.2.2, the DNS forwarder
 * 10.0.2.3. So eth0 is configured here without DHCP.
 */
#include "agent.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define GUEST_ADDR "10.0.2.15"
#define GUEST_MASK "255.255.255.0"
#define GATEWAY	   "10.0.2.2"
#define DNS	   "10.0.2.3"
#define RESOLV	   "/resolv.conf" /* ours, in the initramfs */

static bool net_up;

static void set_addr(struct sockaddr *sa, const char *addr)
{
	struct sockaddr_in *in = (struct sockaddr_in *)sa;

	memset(in, 0, sizeof(*in));
	in->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &in->sin_addr);
}

/* The virtio network device (virtio device id 1), or NULL (static buffer). */
static const char *virtio_net_device(void)
{
	static char name[256];
	DIR *d = opendir("/sys/bus/virtio/devices");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[300], buf[16] = "";
		int fd;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof(buf) - 1) > 0 && strncmp(buf, "0x0001", 6) == 0) {
			snprintf(name, sizeof(name), "%s", e->d_name);
			found = true;
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return found ? name : NULL;
}

static int bring_up(char *msg, size_t msglen)
{
	struct ifreq ifr = {0};
	struct rtentry rt = {0};
	int fd, i;

	for (i = 0; i < 400 && if_nametoindex("eth0") == 0; i++)
		usleep(5000); /* the driver is still probing */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(msg, msglen, "socket: %s", strerror(errno));
		return -1;
	}
	strcpy(ifr.ifr_name, "eth0");
	set_addr(&ifr.ifr_addr, GUEST_ADDR);
	if (ioctl(fd, SIOCSIFADDR, &ifr) < 0)
		goto fail;
	set_addr(&ifr.ifr_netmask, GUEST_MASK);
	if (ioctl(fd, SIOCSIFNETMASK, &ifr) < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		goto fail;
	set_addr(&rt.rt_dst, "0.0.0.0");
	set_addr(&rt.rt_genmask, "0.0.0.0");
	set_addr(&rt.rt_gateway, GATEWAY);
	rt.rt_flags = RTF_UP | RTF_GATEWAY;
	rt.rt_dev = (char *)"eth0";
	if (ioctl(fd, SIOCADDRT, &rt) < 0 && errno != EEXIST)
		goto fail;
	close(fd);
	fd = open(RESOLV, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "nameserver " DNS "\n", sizeof("nameserver " DNS "\n") - 1) < 0) {
		snprintf(msg, msglen, "write " RESOLV ": %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	net_up = true;
	return 0;
fail:
	snprintf(msg, msglen, "configure eth0: %s", strerror(errno));
	close(fd);
	return -1;
}

int agent_net_configure(char *msg, size_t msglen)
{
	if (!virtio_net_device())
		return 0; /* -nic none */
	if (records_get(&config.rec, "netlater"))
		return 0; /* the host says at start */
	return bring_up(msg, msglen);
}

void agent_net_start(bool up)
{
	const char *dev = virtio_net_device();
	char msg[256];
	int fd;

	if (!dev || !records_get(&config.rec, "netlater") || net_up)
		return;
	if (up) {
		if (bring_up(msg, sizeof(msg)) < 0)
			agent_log("%s", msg);
		return;
	}
	/* No network: the NIC leaves the guest (its driver lets go of it). */
	fd = open("/sys/bus/virtio/drivers/virtio_net/unbind", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, dev, strlen(dev)) < 0)
		agent_log("unbind %s: %s", dev, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Does the resolv.conf at path name a nameserver the guest can reach
 * (any but a loopback address, which in the VM is the guest itself)? */
static bool resolv_usable(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool usable = false;

	while (f && fgets(line, sizeof(line), f)) {
		char addr[256];
		if (sscanf(line, " nameserver %255s", addr) != 1)
			continue;
		if (strncmp(addr, "127.", 4) != 0 && strcmp(addr, "::1") != 0)
			usable = true;
	}
	if (f)
		fclose(f);
	return usable;
}

void agent_net_resolv(void)
{
	const char *path = AGENT_ROOT "/etc/resolv.conf";
	struct stat st;
	int fd;

	if (!net_up || resolv_usable(path))
		return;
	if (lstat(path, &st) < 0) {
		/* The rootfs has none: ours is written there (the overlay's
		 * memory, or the container's own rootfs). */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (write(fd, "nameserver " DNS "\n", sizeof("nameserver " DNS "\n") - 1) <
			    0)
				agent_log("write %s: %s", path, strerror(errno));
			close(fd);
		}
		return;
	}
	/* One that names only loopback servers (a host's systemd-resolved stub,
	 * say) is covered by ours, in the container's mount namespace only. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    mount(RESOLV, path, NULL, MS_BIND, NULL) < 0)
		agent_log("bind %s: %s", path, strerror(errno));
}
