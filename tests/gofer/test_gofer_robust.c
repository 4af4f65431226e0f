/*
 * Gofer tests: robustness. Raw channels send truncated, lying, oversized and
 * nonsense messages and hang up mid-request; the gofer answers (EINVAL,
 * EBADF) or drops that channel, keeps serving the others, does not leak fds
 * and exits once every channel is closed.
 */
#include "config.h"
#include "tests/gofer/gofer_test.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>

static char *root;

static void setup(void)
{
	char path[512] = "";

	root = gt_tmpdir("rob");
	gt_write_file(root, "hello.txt", "hello\n");
	gt_mkdir(root, "dir");
	/* deep/d/d/...: a long walk. */
	strcpy(path, "deep");
	gt_mkdir(root, path);
	for (int i = 0; i < 40; i++) {
		strcat(path, "/d");
		gt_mkdir(root, path);
	}
	{
		char *p = gt_path(root, "fifo");

		ck_assert_int_eq(mkfifo(p, 0600), 0);
		free(p);
	}
}

static void teardown(void)
{
	gt_rmtree(root);
	free(root);
}

/* A message under construction. */
struct msg {
	uint8_t buf[GOFER_MAX_MSG + 4096];
	size_t len;
};

static void m_init(struct msg *m, uint16_t op)
{
	struct gofer_hdr h = {.op = op};

	memcpy(m->buf, &h, sizeof(h));
	m->len = sizeof(h);
}

static void m_put(struct msg *m, const void *p, size_t n)
{
	memcpy(m->buf + m->len, p, n);
	m->len += n;
}

static void m_str(struct msg *m, const char *s)
{
	m_put(m, s, strlen(s) + 1);
}

/* Set hdr.size to the real length plus delta. */
static void m_size(struct msg *m, long delta)
{
	uint32_t size = (uint32_t)((long)m->len + delta);

	memcpy(m->buf, &size, sizeof(size));
}

static void raw_send(int fd, const void *p, size_t len)
{
	ck_assert_int_eq(send(fd, p, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* A reply within timeout_ms: its length, 0 when the gofer closed the channel, -1 if none. */
static ssize_t raw_recv(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	return recv(fd, buf, len, 0);
}

static uint8_t reply[GOFER_MAX_MSG];

/* Send m; the reply must echo op and be well formed. Returns its err. */
static int raw_call(int fd, struct msg *m)
{
	struct gofer_hdr sent, h;
	ssize_t n;

	memcpy(&sent, m->buf, sizeof(sent));
	raw_send(fd, m->buf, m->len);
	n = raw_recv(fd, reply, sizeof(reply), 5000);
	ck_assert_msg(n >= (ssize_t)sizeof(h), "no reply to op %u (%zd)", sent.op, n);
	memcpy(&h, reply, sizeof(h));
	ck_assert_uint_eq(h.size, (uint32_t)n);
	ck_assert_uint_eq(h.op, sent.op);
	ck_assert_uint_eq(h.flags, 0);
	ck_assert_uint_eq(h.pad, 0);
	if (h.err)
		ck_assert_uint_eq(h.size, sizeof(h));
	return h.err;
}

static void expect_closed(int fd)
{
	uint8_t b[64];

	ck_assert_int_eq(raw_recv(fd, b, sizeof(b), 5000), 0);
}

/* The gofer still serves: the client (other channels) stats the root. */
static void check_alive(struct gt_gofer *g)
{
	struct gofer_stat st;

	ck_assert_int_eq(gofer_stat(g->c, g->root.handle, &st), 0);
	ck_assert(S_ISDIR(st.mode));
}

static uint64_t raw_attach(int fd)
{
	struct msg m;
	struct gofer_node n;

	m_init(&m, GOFER_OP_ATTACH);
	m_size(&m, 0);
	ck_assert_int_eq(raw_call(fd, &m), 0);
	memcpy(&n, reply + sizeof(struct gofer_hdr), sizeof(n));
	return n.handle;
}

static struct msg m;

START_TEST(test_malformed_messages)
{
	struct gt_gofer g;
	int r;
	uint64_t rootfid;

	gt_start(&g, root, false, 3, 1);
	r = g.raw[1];

	/* Unknown ops. */
	for (unsigned op = 0; op < 3; op++) {
		static const uint16_t ops[] = {0, GOFER_OP_MAX, 0xffff};

		m_init(&m, ops[op]);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
	}
	/* Size fields lying both ways, and garbage in the reserved fields. */
	{
		struct gofer_handle_req h = {.handle = g.root.handle};

		m_init(&m, GOFER_OP_STAT);
		m_put(&m, &h, sizeof(h));
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), 0);
		m_size(&m, +8);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_size(&m, -4);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_size(&m, -(long)m.len);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_size(&m, 0);
		m.buf[6] = 1; /* flags */
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m.buf[6] = 0;
		m.buf[8] = 1; /* err in a request */
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m.buf[8] = 0;
		m.buf[12] = 1; /* pad */
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m.buf[12] = 0;
		/* Short and long bodies. */
		m_init(&m, GOFER_OP_STAT);
		m_put(&m, &h, 4);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_init(&m, GOFER_OP_STAT);
		m_put(&m, &h, sizeof(h));
		m_put(&m, "junk", 4);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		/* Bad handles. */
		for (int i = 0; i < 3; i++) {
			static const uint64_t bad[] = {0, 0xdeadbeefcafeull, ~0ull};

			h.handle = bad[i];
			m_init(&m, GOFER_OP_STAT);
			m_put(&m, &h, sizeof(h));
			m_size(&m, 0);
			ck_assert_int_eq(raw_call(r, &m), EBADF);
		}
	}
	/* An oversized message: the header is read, the rest refused. */
	m_init(&m, GOFER_OP_WRITE);
	memset(m.buf + m.len, 'x', GOFER_MAX_MSG + 100 - m.len);
	m.len = GOFER_MAX_MSG + 100;
	m_size(&m, 0);
	ck_assert_int_eq(raw_call(r, &m), EINVAL);

	/* WALK: huge nnames, too few names, no NUL, too long, empty. */
	{
		struct gofer_walk_req w = {.dir = g.root.handle, .nnames = 0xffffffffu};
		char longname[300];

		m_init(&m, GOFER_OP_WALK);
		m_put(&m, &w, sizeof(w));
		m_str(&m, "dir");
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		w.nnames = GOFER_MAX_WALK + 1;
		memcpy(m.buf + sizeof(struct gofer_hdr), &w, sizeof(w));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		w.nnames = 0;
		memcpy(m.buf + sizeof(struct gofer_hdr), &w, sizeof(w));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		w.nnames = 2;
		memcpy(m.buf + sizeof(struct gofer_hdr), &w, sizeof(w));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		w.nnames = 1;
		m_init(&m, GOFER_OP_WALK);
		m_put(&m, &w, sizeof(w));
		m_put(&m, "dir", 3); /* no NUL */
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		memset(longname, 'a', sizeof(longname));
		longname[sizeof(longname) - 1] = '\0';
		m_init(&m, GOFER_OP_WALK);
		m_put(&m, &w, sizeof(w));
		m_str(&m, longname);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_init(&m, GOFER_OP_WALK);
		m_put(&m, &w, sizeof(w));
		m_put(&m, "", 1);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_init(&m, GOFER_OP_WALK);
		m_put(&m, &w, sizeof(w));
		m_put(&m, "di\0r", 5); /* a name, then trailing bytes */
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
	}
	/* Files: counts and offsets out of range; a handle used as a fid. */
	{
		struct gofer_open_req o = {.handle = g.root.handle,
					   .flags = O_RDONLY | O_DIRECTORY};
		struct gofer_io_req io = {.count = GOFER_MAX_IO + 1};
		struct gofer_getdents_req gd = {.count = 0};
		struct gofer_open_reply rep;

		m_init(&m, GOFER_OP_OPEN);
		m_put(&m, &o, sizeof(o));
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), 0);
		memcpy(&rep, reply + sizeof(struct gofer_hdr), sizeof(rep));
		rootfid = rep.fid;
		o.mode = 0x80;
		memcpy(m.buf + sizeof(struct gofer_hdr), &o, sizeof(o));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);

		io.fid = rootfid;
		m_init(&m, GOFER_OP_READ);
		m_put(&m, &io, sizeof(io));
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		io.count = 10;
		io.offset = ~0ull;
		memcpy(m.buf + sizeof(struct gofer_hdr), &io, sizeof(io));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		io.offset = 0;
		io.fid = g.root.handle;
		memcpy(m.buf + sizeof(struct gofer_hdr), &io, sizeof(io));
		ck_assert_int_eq(raw_call(r, &m), EBADF);
		io.fid = rootfid;
		memcpy(m.buf + sizeof(struct gofer_hdr), &io, sizeof(io));
		ck_assert_int_eq(raw_call(r, &m), EISDIR);

		m_init(&m, GOFER_OP_WRITE);
		io.count = 100; /* but 3 bytes follow */
		m_put(&m, &io, sizeof(io));
		m_put(&m, "abc", 3);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);

		gd.fid = rootfid;
		m_init(&m, GOFER_OP_GETDENTS);
		m_put(&m, &gd, sizeof(gd));
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		gd.count = GOFER_MAX_IO + 1;
		memcpy(m.buf + sizeof(struct gofer_hdr), &gd, sizeof(gd));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
	}
	/* CLOSE with counts that do not match the ids. */
	{
		struct gofer_close_req c = {.nhandles = 0xffffffffu, .nfids = 0xffffffffu};
		uint64_t id = 424242;

		m_init(&m, GOFER_OP_CLOSE);
		m_put(&m, &c, sizeof(c));
		m_put(&m, &id, sizeof(id));
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		c.nhandles = 2;
		c.nfids = 0;
		memcpy(m.buf + sizeof(struct gofer_hdr), &c, sizeof(c));
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		c.nhandles = 1;
		memcpy(m.buf + sizeof(struct gofer_hdr), &c, sizeof(c));
		ck_assert_int_eq(raw_call(r, &m), 0);
	}
	/* xattrs: names without NUL, sizes that lie. */
	{
		struct gofer_xattr_req x = {.handle = g.root.handle, .size = 10};

		m_init(&m, GOFER_OP_SETXATTR);
		m_put(&m, &x, sizeof(x));
		m_str(&m, "user.a");
		m_put(&m, "abc", 3);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_init(&m, GOFER_OP_GETXATTR);
		m_put(&m, &x, sizeof(x));
		m_put(&m, "user.a", 6);
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
	}
	/* SYMLINK without a target; RENAME with one name. */
	{
		struct gofer_mknod_req mk = {.dir = g.root.handle};
		struct gofer_rename_req rn = {.olddir = g.root.handle, .newdir = g.root.handle};

		m_init(&m, GOFER_OP_SYMLINK);
		m_put(&m, &mk, sizeof(mk));
		m_str(&m, "s");
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
		m_init(&m, GOFER_OP_RENAME);
		m_put(&m, &rn, sizeof(rn));
		m_str(&m, "hello.txt");
		m_size(&m, 0);
		ck_assert_int_eq(raw_call(r, &m), EINVAL);
	}
	ck_assert_int_eq(access(gt_path(root, "hello.txt"), F_OK), 0);
	check_alive(&g);

	/* A truncated header, then an empty datagram: those channels are dropped. */
	raw_send(g.raw[1], "abcd", 4);
	expect_closed(g.raw[1]);
	check_alive(&g);
	raw_send(g.raw[2], "", 0);
	expect_closed(g.raw[2]);
	check_alive(&g);
	gt_stop(&g);
}
END_TEST

/* Random messages from a seeded generator: every one is answered. */
START_TEST(test_fuzz)
{
	struct gt_gofer g;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int base;

	gt_start(&g, root, false, 2, 1);
	base = gt_fd_count(g.pid);
	for (int i = 0; i < 3000; i++) {
		uint64_t x = unit_rand(&seed);
		size_t body = (size_t)(unit_rand(&seed) % 96);
		uint16_t op = (uint16_t)(x % (GOFER_OP_MAX + 2));

		/* No ATTACH: it rightly hands out a new handle every time. */
		if (op == GOFER_OP_ATTACH)
			op = GOFER_OP_STAT;
		m_init(&m, op);
		for (size_t k = 0; k < body; k++) {
			uint8_t b = (uint8_t)unit_rand(&seed);

			/* Small numbers sometimes, so that ids and counts are near real ones. */
			if ((x >> 8) & 1)
				b &= 3;
			m_put(&m, &b, 1);
		}
		m_size(&m, ((x >> 16) & 7) == 0 ? (long)((x >> 20) % 9) - 4 : 0);
		raw_call(g.raw[1], &m);
	}
	check_alive(&g);
	/* Whatever the noise opened, it did not pile up fds (handles it made are allowed). */
	ck_assert_int_le(gt_fd_count(g.pid), base + 8);
	gt_stop(&g);
}
END_TEST

/* The fds the gofer holds do not grow over many open/close cycles. */
START_TEST(test_no_fd_leak)
{
	struct gt_gofer g;
	int base;

	gt_start(&g, root, false, 2, 2);
	base = gt_fd_count(g.pid);
	for (int i = 0; i < 300; i++) {
		struct gofer_node f, n;
		uint64_t fid, fid2, fid3;
		uint64_t handles[2];
		int fd;
		char buf[8];

		f = gt_lookup(g.c, g.root.handle, "hello.txt");
		ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY, false, &fid, &fd), 0);
		ck_assert_int_eq(gofer_read(g.c, fid, 0, buf, sizeof(buf)), 6);
		ck_assert_int_eq(gofer_open(g.c, f.handle, O_RDONLY, true, &fid2, &fd), 0);
		close(fd);
		ck_assert_int_eq(gofer_create(g.c, g.root.handle, "tmp", O_RDWR, 0600, 0, 0, false,
					      &n, &fid3, &fd),
				 0);
		ck_assert_int_eq(gofer_unlink(g.c, g.root.handle, "tmp", 0), 0);
		/* Failures must not leak either. */
		ck_assert_int_eq(gofer_mkdir(g.c, g.root.handle, "dir", 0755, 0, 0, &n), -EEXIST);
		ck_assert_int_eq(gofer_create(g.c, g.root.handle, "hello.txt", O_RDWR, 0600, 0, 0,
					      true, &n, &fid2, &fd),
				 -EEXIST);
		handles[0] = f.handle;
		handles[1] = n.handle;
		uint64_t fids[] = {fid, fid3};
		ck_assert_int_eq(gofer_close(g.c, handles, 2, fids, 2), 0);
	}
	ck_assert_int_eq(gt_fd_count(g.pid), base);
	gt_stop(&g);
}
END_TEST

static void wait_fd_count(pid_t pid, int want)
{
	int n = -1;

	for (int i = 0; i < 2000 && (n = gt_fd_count(pid)) != want; i++)
		usleep(1000);
	ck_assert_int_eq(n, want);
}

/*
 * Hanging up mid-request: the gofer forgets what the lost reply handed out.
 * The request is an OPEN of a fifo, which waits for a writer: the channel is
 * closed while it waits, then a writer lets it finish into the void.
 */
START_TEST(test_close_mid_request)
{
	struct gt_gofer g;
	struct gofer_walk_req w = {.nnames = 1};
	struct gofer_open_req o = {.flags = O_RDONLY};
	struct gofer_node n;
	char *fifo = gt_path(root, "fifo");
	uint8_t b[64];
	int base, wfd;

	gt_start(&g, root, false, 4, 1);
	w.dir = raw_attach(g.raw[1]);
	m_init(&m, GOFER_OP_WALK);
	m_put(&m, &w, sizeof(w));
	m_str(&m, "fifo");
	m_size(&m, 0);
	ck_assert_int_eq(raw_call(g.raw[1], &m), 0);
	memcpy(&n, reply + sizeof(struct gofer_hdr) + sizeof(struct gofer_walk_reply), sizeof(n));
	/* Those two handles stay: their replies arrived (the sentry owns them until CLOSE). */
	base = gt_fd_count(g.pid);

	o.handle = n.handle;
	m_init(&m, GOFER_OP_OPEN);
	m_put(&m, &o, sizeof(o));
	m_size(&m, 0);
	raw_send(g.raw[1], m.buf, m.len);
	ck_assert_int_eq(raw_recv(g.raw[1], b, sizeof(b), 50), -1);
	close(g.raw[1]);
	g.raw[1] = -1;
	wfd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(wfd, 0);
	/* The fid made for the lost reply is closed, and so is the channel. */
	wait_fd_count(g.pid, base - 1);
	close(wfd);
	free(fifo);
	check_alive(&g);
	base--;

	/* SCM_RIGHTS sent to the gofer are dropped by the kernel, not kept. */
	{
		struct gofer_handle_req h = {.handle = 1};
		int p[2];
		union {
			struct cmsghdr align;
			char buf[CMSG_SPACE(2 * sizeof(int))];
		} cb;
		struct iovec iov = {.iov_base = m.buf, .iov_len = 0};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cb.buf,
				    .msg_controllen = sizeof(cb.buf)};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

		ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
		m_init(&m, GOFER_OP_STAT);
		m_put(&m, &h, sizeof(h));
		m_size(&m, 0);
		iov.iov_len = m.len;
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
		memcpy(CMSG_DATA(cm), p, 2 * sizeof(int));
		for (int i = 0; i < 20; i++) {
			ck_assert_int_eq(sendmsg(g.raw[2], &mh, MSG_NOSIGNAL), (ssize_t)m.len);
			ck_assert_int_gt(raw_recv(g.raw[2], b, sizeof(b), 5000), 0);
		}
		close(p[0]);
		close(p[1]);
		ck_assert_int_eq(gt_fd_count(g.pid), base);
	}
	check_alive(&g);
	gt_stop(&g);
}
END_TEST

/* A request that blocks (reading an empty fifo) stalls only its channel. */
START_TEST(test_blocked_channel)
{
	struct gt_gofer g;
	struct gofer_walk_req w = {.nnames = 1};
	struct gofer_open_req o = {.flags = O_RDWR};
	struct gofer_io_req io = {.count = 64};
	struct gofer_open_reply rep;
	struct gofer_node n;
	uint8_t b[256];
	char *fifo = gt_path(root, "fifo");
	ssize_t len;
	int r, wfd;

	gt_start(&g, root, false, 2, 1);
	r = g.raw[1];
	w.dir = raw_attach(r);
	m_init(&m, GOFER_OP_WALK);
	m_put(&m, &w, sizeof(w));
	m_str(&m, "fifo");
	m_size(&m, 0);
	ck_assert_int_eq(raw_call(r, &m), 0);
	memcpy(&n, reply + sizeof(struct gofer_hdr) + sizeof(struct gofer_walk_reply), sizeof(n));
	ck_assert(S_ISFIFO(n.stat.mode));
	o.handle = n.handle;
	m_init(&m, GOFER_OP_OPEN);
	m_put(&m, &o, sizeof(o));
	m_size(&m, 0);
	ck_assert_int_eq(raw_call(r, &m), 0);
	memcpy(&rep, reply + sizeof(struct gofer_hdr), sizeof(rep));
	io.fid = rep.fid;
	m_init(&m, GOFER_OP_READ);
	m_put(&m, &io, sizeof(io));
	m_size(&m, 0);
	raw_send(r, m.buf, m.len);
	/* No data, no reply; the other channel is served meanwhile. */
	ck_assert_int_eq(raw_recv(r, b, sizeof(b), 100), -1);
	for (int i = 0; i < 20; i++)
		check_alive(&g);
	/* Data arrives: the read completes with it. */
	wfd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(wfd, 0);
	ck_assert_int_eq(write(wfd, "ping", 4), 4);
	len = raw_recv(r, b, sizeof(b), 5000);
	ck_assert_int_eq(len, (ssize_t)sizeof(struct gofer_hdr) + 4);
	ck_assert(memcmp(b + sizeof(struct gofer_hdr), "ping", 4) == 0);
	close(wfd);
	free(fifo);
	gt_stop(&g);
}
END_TEST

/* The gofer exits when all its channels close, and when its parent dies. */
START_TEST(test_exit)
{
	struct gt_gofer g;
	int pipefd[2];
	pid_t mid, gofer_pid;

	gt_start(&g, root, false, 3, 0);
	close(g.raw[0]);
	g.raw[0] = -1;
	close(g.raw[1]);
	g.raw[1] = -1;
	/* One channel left: still alive. */
	ck_assert_int_eq(gt_wait(&g, 50), -1);
	gt_stop(&g);

	/* A parent that dies without closing anything: PR_SET_PDEATHSIG. We become
	 * the orphan's reaper, to see it die rather than linger as a zombie. */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	mid = fork();
	ck_assert_int_ge(mid, 0);
	if (mid == 0) {
		struct gofer_config cfg = {.rootfs = root};
		struct rung_error err = {0};
		int fds[1];
		pid_t p;

		if (gofer_spawn(&cfg, 1, &p, fds, &err) < 0)
			_exit(1);
		if (write(pipefd[1], &p, sizeof(p)) != sizeof(p))
			_exit(1);
		pause(); /* killed below, holding the channel open */
		_exit(0);
	}
	close(pipefd[1]);
	ck_assert_int_eq(read(pipefd[0], &gofer_pid, sizeof(gofer_pid)), sizeof(gofer_pid));
	close(pipefd[0]);
	kill(mid, SIGKILL);
	waitpid(mid, NULL, 0);
	g.pid = gofer_pid;
	{
		int status = gt_wait(&g, 5000);

		ck_assert_int_ne(status, -1);
		ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gofer robustness");
	TCase *tc = tcase_create("robust");

	tcase_add_unchecked_fixture(tc, gt_base_setup, gt_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_malformed_messages);
	tcase_add_test(tc, test_fuzz);
	tcase_add_test(tc, test_no_fd_leak);
	tcase_add_test(tc, test_close_mid_request);
	tcase_add_test(tc, test_blocked_channel);
	tcase_add_test(tc, test_exit);
	suite_add_tcase(s, tc);
	return s;
}

GOFER_TEST_MAIN(suite)
