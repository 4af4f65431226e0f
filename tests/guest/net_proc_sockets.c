/*
 * Guest test: the sockets in /proc/net/tcp, tcp6 and unix, as Linux lists
 * them: tcp's lines padded to 149 characters (tcp6's not), a listener and
 * an accepted connection found by their inode with the right port, state
 * and owner; unix sockets with their flags, type, state and name (abstract
 * names with '@', the connecting end unnamed); /proc/net is a link to
 * self/net. Entries are looked up by inode or name: nothing printed
 * depends on ports, inodes or other sockets.
 */
#include "netguest.h"

#include <stddef.h>
#include <sys/stat.h>
#include <sys/un.h>

/* The whole file (the namespace may hold many sockets, as other tests'
 * TIME_WAIT ones natively); the buffer lives until the next call. */
static char *slurp(const char *path)
{
	static char *buf;
	static size_t cap;
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		if (!got)
			break;
		n += got;
	}
	buf[n] = 0;
	fclose(f);
	return buf;
}

static unsigned long ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

struct inet_entry {
	unsigned port, state, uid;
	int found;
};

/* The entry of the socket with inode ino in /proc/net/tcp or tcp6. */
static struct inet_entry inet_find(const char *path, unsigned long ino)
{
	struct inet_entry e = {0};
	char *text = slurp(path), *line, *save = NULL;

	if (!text)
		return e;
	line = strtok_r(text, "\n", &save); /* the header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		char local[64], remote[64];
		unsigned st, uid;
		unsigned long inode;
		char *colon;
		if (sscanf(line, "%*d: %63s %63s %x %*s %*s %*s %u %*d %lu", local, remote, &st,
			   &uid, &inode) != 5 ||
		    inode != ino)
			continue;
		colon = strchr(local, ':');
		e.port = colon ? (unsigned)strtoul(colon + 1, NULL, 16) : 0;
		e.state = st;
		e.uid = uid;
		e.found = 1;
	}
	return e;
}

/* Are all lines of path exactly width characters long? */
static int lines_width(const char *path, size_t width)
{
	char *text = slurp(path), *line, *save = NULL;

	if (!text)
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) != width)
			return 0;
	return 1;
}

static void check_inet(int family)
{
	const char *path = family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6";
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	struct inet_entry e;
	int l, c, a;
	unsigned port;
	char what[96];

	l = net_bound(family, SOCK_STREAM, &addr, &len);
	port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&addr)->sin_port
				       : ((struct sockaddr_in6 *)&addr)->sin6_port);
	e = inet_find(path, ino_of(l));
	snprintf(what, sizeof(what), "%s lists the listener, port and state 0A", path);
	CHECK(e.found && e.port == port && e.state == 0x0a, what);
	c = socket(family, SOCK_STREAM, 0);
	CHECK(connect(c, (struct sockaddr *)&addr, len) == 0, "connect");
	a = accept(l, NULL, NULL);
	CHECK(a >= 0, "accept");
	e = inet_find(path, ino_of(a));
	snprintf(what, sizeof(what), "%s lists the accepted socket: port, state 01, uid", path);
	CHECK(e.found && e.port == port && e.state == 0x01 && e.uid == getuid(), what);
	e = inet_find(path, ino_of(c));
	snprintf(what, sizeof(what), "%s lists the connecting socket as established", path);
	CHECK(e.found && e.state == 0x01 && e.port != port, what);
	close(a);
	close(c);
	close(l);
}

struct unix_entry {
	unsigned refs, proto, flags, type, state;
	unsigned long inode;
	char path[128];
	int found;
};

/* The unix socket named path (by inode when path is NULL). */
static struct unix_entry unix_find(const char *path, unsigned long ino)
{
	struct unix_entry e = {0};
	char *text = slurp("/proc/net/unix"), *line, *save = NULL;

	if (!text)
		return e;
	line = strtok_r(text, "\n", &save);
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct unix_entry x = {0};
		int n = sscanf(line, "%*x: %x %x %x %x %x %lu %127s", &x.refs, &x.proto, &x.flags,
			       &x.type, &x.state, &x.inode, x.path);
		if (n < 6)
			continue;
		if (path ? strcmp(x.path, path) == 0 && (!ino || x.inode == ino) : x.inode == ino) {
			e = x;
			e.found = 1;
		}
	}
	return e;
}

static void check_unix(void)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char shown[128], fspath[128];
	socklen_t len;
	struct unix_entry e;
	int l, c, a, sv[2], d;
	unsigned long lino;

	CHECK(strncmp(slurp("/proc/net/unix"),
		      "Num       RefCount Protocol Flags    Type St Inode Path\n", 55) == 0,
	      "/proc/net/unix has Linux's header");
	/* An abstract name (its leading NUL shows as '@'). */
	snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1, "rung-proc-net-%d", getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sun.sun_path + 1));
	snprintf(shown, sizeof(shown), "@%s", sun.sun_path + 1);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(bind(l, (struct sockaddr *)&sun, len) == 0, "bind an abstract name");
	lino = ino_of(l);
	e = unix_find(shown, 0);
	CHECK(e.found && e.inode == lino && e.type == 1 && e.state == 1 && e.flags == 0,
	      "a bound stream socket: type 0001, unconnected, no flags");
	listen(l, 5);
	e = unix_find(shown, lino);
	CHECK(e.found && e.state == 1 && e.flags == 0x10000 && e.proto == 0,
	      "a listener: __SO_ACCEPTCON, still unconnected");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(connect(c, (struct sockaddr *)&sun, len) == 0, "connect");
	e = unix_find(NULL, ino_of(c));
	CHECK(e.found && e.state == 3 && !e.path[0], "the connecting end: connected, unnamed");
	a = accept(l, NULL, NULL);
	e = unix_find(shown, ino_of(a));
	CHECK(e.found && e.state == 3 && e.flags == 0 && e.refs >= 1,
	      "the accepted end: the listener's name, connected");
	close(a);
	close(c);
	close(l);
	CHECK(!unix_find(shown, 0).found, "closed sockets are gone");

	/* A name in the file system. */
	snprintf(fspath, sizeof(fspath), "/tmp/rung-proc-net-%d.sock", getpid());
	unlink(fspath);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, fspath);
	d = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK(bind(d, (struct sockaddr *)&sun, sizeof(sun)) == 0, "bind a path");
	e = unix_find(fspath, ino_of(d));
	CHECK(e.found && e.type == 2 && e.state == 1, "a bound datagram socket: type 0002, its path");
	close(d);
	unlink(fspath);

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0, "socketpair");
	e = unix_find(NULL, ino_of(sv[0]));
	CHECK(e.found && e.type == 5 && e.state == 3 && unix_find(NULL, ino_of(sv[1])).found,
	      "a socketpair: both ends, type 0005, connected");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	char target[32] = {0};
	struct stat st;
	const char *tcp6;

	CHECK(readlink("/proc/net", target, sizeof(target) - 1) == 8 &&
		      strcmp(target, "self/net") == 0,
	      "/proc/net is a link to self/net");
	CHECK(stat("/proc/self/net", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0555,
	      "/proc/self/net is a directory");
	CHECK(strncmp(slurp("/proc/net/tcp"),
		      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
		      "   uid  timeout inode ",
		      97) == 0,
	      "/proc/net/tcp has Linux's header");
	check_inet(AF_INET);
	CHECK(lines_width("/proc/net/tcp", 149), "each line of /proc/net/tcp is 149 characters");
	CHECK(lines_width("/proc/net/udp", 127), "each line of /proc/net/udp is 127 characters");
	tcp6 = slurp("/proc/net/tcp6");
	CHECK(tcp6 && strncmp(tcp6,
			      "  sl  local_address                         remote_address           "
			      "             st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
			      "inode\n",
			      145) == 0,
	      "/proc/net/tcp6 has Linux's header, not padded");
	check_inet(AF_INET6);
	check_unix();
	return GUEST_DONE();
}
