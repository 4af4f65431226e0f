/*
 * Guest test: the network stack's settings under /proc/sys/net: ipv6 is a
 * directory (0555); ip_forward, tcp_sack, tcp_recovery, bindv6only,
 * auto_flowlabels, ip_nonlocal_bind and ip6frag_time each read as one
 * number; bindv6only is what a new AF_INET6 socket's IPV6_V6ONLY says.
 */
#include "guest.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

/* The number the file holds, or -1 unless it is one decimal and a newline. */
static long number(const char *path)
{
	char buf[64], *end;
	int fd = open(path, O_RDONLY);
	ssize_t n;
	long v;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 1 || buf[n - 1] != '\n')
		return -1;
	buf[n] = 0;
	v = strtol(buf, &end, 10);
	return end == buf || *end != '\n' ? -1 : v;
}

int main(void)
{
	static const char *const flags[] = {
		"ipv4/ip_forward",	"ipv4/tcp_sack",    "ipv4/tcp_recovery",
		"ipv6/auto_flowlabels", "ipv6/bindv6only", "ipv6/ip_nonlocal_bind",
	};
	struct stat st;
	char path[96], what[128];
	int s, v6only = -1;
	socklen_t len = sizeof(v6only);

	CHECK(stat("/proc/sys/net/ipv6", &st) == 0 && S_ISDIR(st.st_mode) &&
		      (st.st_mode & 0777) == 0555,
	      "/proc/sys/net/ipv6 is a directory, 0555");
	for (unsigned i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		long v;
		snprintf(path, sizeof(path), "/proc/sys/net/%s", flags[i]);
		v = number(path);
		snprintf(what, sizeof(what), "net/%s is a small number", flags[i]);
		CHECK(v >= 0 && v <= 3, what);
	}
	CHECK(number("/proc/sys/net/ipv6/ip6frag_time") > 0, "net/ipv6/ip6frag_time is seconds");
	s = socket(AF_INET6, SOCK_STREAM, 0);
	CHECK(s >= 0 && getsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &len) == 0 &&
		      v6only == number("/proc/sys/net/ipv6/bindv6only"),
	      "a new AF_INET6 socket's IPV6_V6ONLY is bindv6only");
	close(s);
	return GUEST_DONE();
}
