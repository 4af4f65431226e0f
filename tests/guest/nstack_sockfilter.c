/*
 * Guest test: socket filters (SO_ATTACH_FILTER, SO_DETACH_FILTER,
 * SO_LOCK_FILTER) as Linux checks and runs them:
 * - the checks: a wrong option length, no program, an empty or an
 *   unmapped one, an unknown opcode, a jump out of the program, a last
 *   instruction that is not a return, an unknown ancillary word, a
 *   division by a constant 0: EINVAL (EFAULT for the unmapped one);
 * - on UDP: the program sees the UDP header then the payload, drops what
 *   it returns 0 for, cuts to what it returns (never below the header),
 *   reads the IP header at SKF_NET_OFF and the ancillary words (protocol,
 *   packet type, length); a new program replaces the old; detached, all
 *   passes; SO_DETACH_FILTER without one: ENOENT;
 * - SO_LOCK_FILTER: then attach, detach and unlocking are EPERM;
 * - a raw ICMP socket whose program keeps echo replies only (BPF_MSH);
 * - a TCP socket takes and detaches a program.
 */
#include "netguest.h"

#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/ip_icmp.h>
#include <sys/mman.h>

#define ACCEPT 0xffff

static int attach(int fd, struct sock_filter *code, unsigned short n)
{
	struct sock_fprog p = {n, code};

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &p, sizeof(p));
}

static int detach(int fd)
{
	int v = 0;

	return setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &v, sizeof(v));
}

/* Send each of the strings to addr from s, then read what r gets (up to
 * EAGAIN) into out, separated by '|'. */
static const char *exchange(int s, int r, const struct sockaddr_storage *addr, socklen_t len,
			    const char *const *msgs, int n)
{
	static char out[256];
	char buf[64];
	long got;

	out[0] = '\0';
	for (int i = 0; i < n; i++)
		sendto(s, msgs[i], strlen(msgs[i]), 0, (const struct sockaddr *)addr, len);
	/* the last one sent, which every program here keeps, marks the end */
	while ((got = recv(r, buf, sizeof(buf) - 1, 0)) >= 0) {
		buf[got] = '\0';
		if (strcmp(buf, "END") == 0)
			break;
		strcat(out, buf);
		strcat(out, "|");
	}
	return out;
}

static void checks(int fd)
{
	struct sock_filter ret = BPF_STMT(BPF_RET | BPF_K, ACCEPT);
	struct sock_filter bad_op[] = {{0xff, 0, 0, 0}, ret};
	struct sock_filter bad_jmp[] = {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 5, 0), ret};
	struct sock_filter no_ret[] = {BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0)};
	struct sock_filter bad_anc[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + 2), ret};
	struct sock_filter div0[] = {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), ret};
	struct sock_fprog p = {1, &ret};
	void *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	printf("-- the checks\n");
	CHECK_ERRNO(detach(fd), ENOENT, "SO_DETACH_FILTER without one: ENOENT");
	CHECK_ERRNO(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &p, sizeof(p) - 1), EINVAL,
		    "a short struct sock_fprog: EINVAL");
	CHECK_ERRNO(attach(fd, NULL, 1), EINVAL, "no program: EINVAL");
	CHECK_ERRNO(attach(fd, &ret, 0), EINVAL, "an empty program: EINVAL");
	CHECK_ERRNO(attach(fd, &ret, BPF_MAXINSNS + 1), EINVAL, "too long: EINVAL");
	munmap(gone, 4096);
	CHECK_ERRNO(attach(fd, gone, 1), EFAULT, "an unmapped program: EFAULT");
	CHECK_ERRNO(attach(fd, bad_op, 2), EINVAL, "an unknown opcode: EINVAL");
	CHECK_ERRNO(attach(fd, bad_jmp, 2), EINVAL, "a jump out of the program: EINVAL");
	CHECK_ERRNO(attach(fd, no_ret, 1), EINVAL, "no return at the end: EINVAL");
	CHECK_ERRNO(attach(fd, bad_anc, 2), EINVAL, "an unknown ancillary word: EINVAL");
	CHECK_ERRNO(attach(fd, div0, 2), EINVAL, "a division by 0: EINVAL");
	CHECK_ERRNO(detach(fd), ENOENT, "none of them was attached");
}

static void udp(void)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int r = net_bound(AF_INET, SOCK_DGRAM, &addr, &len), s = socket(AF_INET, SOCK_DGRAM, 0);
	/* the first payload byte (past the 8-byte UDP header) is 'A' or 'E' */
	struct sock_filter first_a[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'A', 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'E', 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	/* 8 + 3 bytes, but all of "END" */
	struct sock_filter cut[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'E', 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
		BPF_STMT(BPF_RET | BPF_K, 11),
	};
	/* below the header: the header is kept */
	struct sock_filter tiny[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'E', 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	/* IP protocol 17 at SKF_NET_OFF + 9, ETH_P_IP, PACKET_HOST, and a
	 * length (UDP header and payload) of at least 11 */
	struct sock_filter meta[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF + 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 7),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_AD_OFF + SKF_AD_PROTOCOL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)SKF_AD_OFF + SKF_AD_PKTTYPE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_HOST, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 11, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	/* a load past the end (byte 14: 7 bytes of payload) drops the datagram */
	struct sock_filter past[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'E', 2, 0),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
	};
	const char *const msgs[] = {"A1", "B2", "A3", "C4", "END"};
	const char *const longs[] = {"hello", "abcdef", "END"};
	const char *const sizes[] = {"x", "yyyyyyy", "END"};

	printf("-- UDP\n");
	checks(r);
	CHECK_EQ(attach(r, first_a, 5), 0, "a program that keeps \"A...\"");
	CHECK(strcmp(exchange(s, r, &addr, len, msgs, 5), "A1|A3|") == 0, "... A1 and A3 only");
	CHECK_EQ(attach(r, cut, 4), 0, "another, that keeps 11 bytes (it replaces the first)");
	CHECK(strcmp(exchange(s, r, &addr, len, longs, 3), "hel|abc|") == 0,
	      "... 3 bytes of payload each");
	CHECK_EQ(attach(r, tiny, 4), 0, "one that keeps 1 byte");
	CHECK(strcmp(exchange(s, r, &addr, len, longs, 3), "||") == 0,
	      "... the header: empty datagrams");
	CHECK_EQ(attach(r, meta, 10), 0, "one that reads the IP header and ancillary words");
	CHECK(strcmp(exchange(s, r, &addr, len, sizes, 3), "yyyyyyy|") == 0,
	      "... UDP, ETH_P_IP, PACKET_HOST, the length");
	CHECK_EQ(attach(r, past, 5), 0, "one that loads past the end of short ones");
	CHECK(strcmp(exchange(s, r, &addr, len, sizes, 3), "yyyyyyy|") == 0,
	      "... drops them (the load ends it with 0)");
	CHECK_EQ(detach(r), 0, "detached");
	CHECK(strcmp(exchange(s, r, &addr, len, msgs, 5), "A1|B2|A3|C4|") == 0, "... all pass");
	CHECK_ERRNO(detach(r), ENOENT, "detached twice: ENOENT");
	close(r);
	close(s);
}

static void locked(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1, zero = 0, v = -1;
	socklen_t l = sizeof(v);
	struct sock_filter ret = BPF_STMT(BPF_RET | BPF_K, ACCEPT);

	printf("-- SO_LOCK_FILTER\n");
	CHECK_EQ(attach(fd, &ret, 1), 0, "a program");
	CHECK_EQ(setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)), 0, "locked");
	CHECK(getsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &v, &l) == 0 && v == 1, "... reads 1");
	CHECK_ERRNO(detach(fd), EPERM, "detach: EPERM");
	CHECK_ERRNO(attach(fd, &ret, 1), EPERM, "attach: EPERM");
	CHECK_ERRNO(setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &zero, sizeof(zero)), EPERM,
		    "unlock: EPERM");
	CHECK_EQ(setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)), 0,
		 "lock again: fine");
	close(fd);
}

static uint16_t csum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

static void raw(void)
{
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	/* X = the IP header's length; the ICMP type at X must be 0 (a reply) */
	struct sock_filter replies[] = {
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ICMP_ECHOREPLY, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ACCEPT),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct icmphdr h = {.type = ICMP_ECHO, .un.echo = {htons(0x4242), htons(1)}};
	unsigned char buf[128];
	long n;

	printf("-- a raw ICMP socket\n");
	if (fd < 0) {
		printf("(no raw socket: %s)\n", strerror(errno));
		return;
	}
	h.checksum = csum(&h, sizeof(h));
	CHECK_EQ(attach(fd, replies, 5), 0, "a program that keeps echo replies");
	CHECK_EQ(sendto(fd, &h, sizeof(h), 0, (struct sockaddr *)&lo, sizeof(lo)), sizeof(h),
		 "an echo request to 127.0.0.1");
	n = recv(fd, buf, sizeof(buf), 0);
	CHECK(n >= 28 && buf[(buf[0] & 0xf) * 4] == ICMP_ECHOREPLY,
	      "the first packet read is the reply (the request was dropped)");
	close(fd);
}

static void tcp(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), v = 0;
	socklen_t l = sizeof(v);
	struct sock_filter ret = BPF_STMT(BPF_RET | BPF_K, ACCEPT);

	printf("-- TCP\n");
	CHECK_ERRNO(getsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &v, &l), ENOPROTOOPT,
		    "getsockopt(SO_DETACH_FILTER): ENOPROTOOPT");
	CHECK_EQ(attach(fd, &ret, 1), 0, "a program");
	CHECK_EQ(detach(fd), 0, "detached");
	CHECK_ERRNO(detach(fd), ENOENT, "twice: ENOENT");
	close(fd);
}

int main(void)
{
	alarm(60); /* a datagram a program should have kept blocks the read instead */
	udp();
	locked();
	raw();
	tcp();
	return GUEST_DONE();
}
