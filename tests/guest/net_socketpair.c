/*
 * Guest test: socketpair()'s errors, as Linux's __sys_socketpair gives
 * them: bad flags (EINVAL) and the result array (EFAULT) are looked at
 * before the family; then the socket is made as socket() would (its
 * errors: EAFNOSUPPORT, EINVAL, ESOCKTNOSUPPORT, EPROTONOSUPPORT), and
 * only AF_UNIX can pair (every other family: EOPNOTSUPP).
 */
#include "guest.h"

#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>

static long pair(int family, int type, int protocol, int *sv)
{
	return syscall(SYS_socketpair, family, type, protocol, sv);
}

static int so_type(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) < 0 ? -2 : v;
}

/* The lowest free descriptor (to see that a failed call kept none). */
static int lowest_free(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd;
}

int main(void)
{
	int sv[2] = {-1, -1}, low = lowest_free();

	printf("-- families that cannot pair\n");
	CHECK_ERRNO(pair(AF_INET, SOCK_STREAM, 0, sv), EOPNOTSUPP, "AF_INET, SOCK_STREAM");
	CHECK_ERRNO(pair(AF_INET, SOCK_DGRAM, 0, sv), EOPNOTSUPP, "AF_INET, SOCK_DGRAM");
	CHECK_ERRNO(pair(AF_INET6, SOCK_STREAM, IPPROTO_TCP, sv), EOPNOTSUPP,
		    "AF_INET6, SOCK_STREAM, IPPROTO_TCP");
	CHECK_ERRNO(pair(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), EOPNOTSUPP,
		    "AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC");
	CHECK_ERRNO(pair(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, sv), EOPNOTSUPP,
		    "AF_NETLINK, SOCK_RAW, NETLINK_ROUTE");
	CHECK_EQ(lowest_free(), low, "no descriptor kept");

	printf("-- the socket's own errors come first\n");
	CHECK_ERRNO(pair(AF_INET, SOCK_STREAM, IPPROTO_UDP, sv), EPROTONOSUPPORT,
		    "AF_INET, SOCK_STREAM, IPPROTO_UDP");
	CHECK_ERRNO(pair(AF_INET, SOCK_SEQPACKET, 0, sv), ESOCKTNOSUPPORT,
		    "AF_INET, SOCK_SEQPACKET");
	CHECK_ERRNO(pair(AF_INET, 99, 0, sv), EINVAL, "AF_INET, type 99");
	CHECK_ERRNO(pair(AF_NETLINK, SOCK_STREAM, 0, sv), ESOCKTNOSUPPORT,
		    "AF_NETLINK, SOCK_STREAM");
	CHECK_ERRNO(pair(AF_MAX, SOCK_STREAM, 0, sv), EAFNOSUPPORT, "family AF_MAX");
	CHECK_ERRNO(pair(-1, SOCK_STREAM, 0, sv), EAFNOSUPPORT, "family -1");
	CHECK_ERRNO(pair(AF_UNIX, SOCK_RDM, 0, sv), ESOCKTNOSUPPORT, "AF_UNIX, SOCK_RDM");
	CHECK_ERRNO(pair(AF_UNIX, SOCK_STREAM, 7, sv), EPROTONOSUPPORT, "AF_UNIX, protocol 7");
	CHECK_ERRNO(pair(AF_UNIX, -1, 0, sv), EINVAL, "AF_UNIX, type -1");

	printf("-- flags and the array before the family\n");
	CHECK_ERRNO(pair(AF_INET, SOCK_STREAM | 0x100000, 0, sv), EINVAL, "AF_INET, a bad flag");
	CHECK_ERRNO(pair(AF_UNIX, SOCK_STREAM, 0, NULL), EFAULT, "AF_UNIX, a NULL array");
	CHECK_ERRNO(pair(AF_INET, SOCK_STREAM, 0, NULL), EFAULT, "AF_INET, a NULL array");
	CHECK_ERRNO(pair(AF_MAX, SOCK_STREAM, 0, NULL), EFAULT, "family AF_MAX, a NULL array");
	CHECK_EQ(lowest_free(), low, "no descriptor kept");

	printf("-- AF_UNIX pairs\n");
	CHECK_EQ(pair(AF_UNIX, SOCK_RAW, 0, sv), 0, "AF_UNIX, SOCK_RAW");
	CHECK_EQ(so_type(sv[0]), SOCK_DGRAM, "... is SOCK_DGRAM");
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(pair(AF_UNIX, SOCK_SEQPACKET, PF_UNIX, sv), 0, "AF_UNIX, SOCK_SEQPACKET, PF_UNIX");
	CHECK_EQ(so_type(sv[1]), SOCK_SEQPACKET, "... is SOCK_SEQPACKET");
	close(sv[0]);
	close(sv[1]);
	return GUEST_DONE();
}
