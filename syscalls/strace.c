/*
 * --strace: one line per guest system call, strace style:
 *   [pid 1] write(1, "hello\n", 6) = 6
 *   [pid 1] mount(0x4a3f10, ...) = -1 ENOSYS (Function not implemented)
 * Arguments are formatted on entry (input buffers as the guest passed them),
 * output buffers on exit; the line is logged once, at info level.
 */
#include "config.h"
#include "syscalls/syscall.h"
#include "sentry/kernel/task.h"
#include "sentry/kernel/signal.h"
#include "sentry/mm/mm.h"
#include "lib/log.h"
#include "lib/util.h"

#include <asm/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <linux/prctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define STRACE_STR_MAX 32
#define LINE_MAX_LEN   1024

static __thread char line[LINE_MAX_LEN];
static __thread size_t len;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= sizeof(line) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	if (n > 0)
		len = MIN(len + (size_t)n, sizeof(line) - 1);
}

/* Print up to max bytes of data as a C string literal. */
static void put_bytes(const unsigned char *p, size_t n, size_t max, bool more)
{
	put("\"");
	for (size_t i = 0; i < n && i < max; i++) {
		unsigned char c = p[i];
		switch (c) {
		case '\n':
			put("\\n");
			break;
		case '\t':
			put("\\t");
			break;
		case '\r':
			put("\\r");
			break;
		case '"':
			put("\\\"");
			break;
		case '\\':
			put("\\\\");
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				put("%c", c);
			else
				put("\\%o", c);
		}
	}
	put("\"%s", (n > max || more) ? "..." : "");
}

static void put_guest_buf(struct task *t, uint64_t addr, uint64_t n)
{
	unsigned char buf[STRACE_STR_MAX];
	size_t want = MIN(n, (uint64_t)sizeof(buf));

	if (mm_copy_in(t->mm, buf, addr, want) < 0) {
		put("0x%llx", (unsigned long long)addr);
		return;
	}
	put_bytes(buf, want, sizeof(buf), n > want);
}

/* {AF_UNIX, "path"} ("@name" for an abstract name), or the family alone. */
static void put_guest_sockaddr(struct task *t, uint64_t addr, uint64_t alen)
{
	unsigned char buf[128];
	size_t want = MIN(alen, (uint64_t)sizeof(buf));
	uint16_t family;

	if (!addr) {
		put("NULL");
		return;
	}
	if (want < sizeof(family) || mm_copy_in(t->mm, buf, addr, want) < 0) {
		put("0x%llx", (unsigned long long)addr);
		return;
	}
	memcpy(&family, buf, sizeof(family));
	if (family != AF_UNIX) {
		put("{sa_family=%u}", family);
		return;
	}
	put("{AF_UNIX, ");
	if (want == sizeof(family)) {
		put("\"\"}");
		return;
	}
	if (buf[2] == 0) {
		put("@");
		put_bytes(buf + 3, want - 3, want - 3, false);
	} else {
		size_t n = strnlen((char *)buf + 2, want - 2);
		put_bytes(buf + 2, n, n, false);
	}
	put("}");
}

static void put_guest_str(struct task *t, uint64_t addr)
{
	char buf[STRACE_STR_MAX + 1];
	long n;

	if (!addr) {
		put("NULL");
		return;
	}
	n = mm_strncpy_in(t->mm, buf, addr, sizeof(buf));
	if (n == -EFAULT) {
		put("0x%llx", (unsigned long long)addr);
		return;
	}
	if (n < 0)
		n = STRACE_STR_MAX;
	put_bytes((unsigned char *)buf, (size_t)n, STRACE_STR_MAX, n >= STRACE_STR_MAX);
}

struct flag_name {
	uint64_t bit;
	const char *name;
};

static void put_flags(uint64_t v, const struct flag_name *f, size_t n, const char *zero)
{
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		if (f[i].bit && (v & f[i].bit) == f[i].bit) {
			put("%s%s", first ? "" : "|", f[i].name);
			v &= ~f[i].bit;
			first = false;
		}
	}
	if (v || first)
		put(first ? "%s" : "|%s", v ? "" : zero);
	if (v)
		put("0x%llx", (unsigned long long)v);
}

#define F(x)          \
	{             \
		x, #x \
	}
static const struct flag_name prot_names[] = {F(PROT_READ), F(PROT_WRITE), F(PROT_EXEC),
					      F(PROT_GROWSDOWN)};
static const struct flag_name map_names[] = {
	F(MAP_SHARED),
	F(MAP_PRIVATE),
	F(MAP_FIXED),
	F(MAP_ANONYMOUS),
	F(MAP_GROWSDOWN),
	F(MAP_NORESERVE),
	F(MAP_POPULATE),
	F(MAP_STACK),
	F(MAP_32BIT),
	F(MAP_HUGETLB),
	F(MAP_LOCKED),
	F(MAP_NONBLOCK),
	{0x100000, "MAP_FIXED_NOREPLACE"},
};
static const struct flag_name open_names[] = {F(O_CLOEXEC), F(O_NONBLOCK), F(O_APPEND)};

static const char *symbol(uint64_t v, const struct flag_name *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].bit == v)
			return f[i].name;
	return NULL;
}

static const struct flag_name clock_names[] = {
	F(CLOCK_REALTIME),	    F(CLOCK_MONOTONIC),	    F(CLOCK_PROCESS_CPUTIME_ID),
	F(CLOCK_THREAD_CPUTIME_ID), F(CLOCK_MONOTONIC_RAW), F(CLOCK_REALTIME_COARSE),
	F(CLOCK_MONOTONIC_COARSE),  F(CLOCK_BOOTTIME),
};
static const struct flag_name fcntl_names[] = {
	F(F_DUPFD), F(F_GETFD), F(F_SETFD), F(F_GETFL), F(F_SETFL), F(F_DUPFD_CLOEXEC),
};
static const struct flag_name ioctl_names[] = {
	F(TCGETS),     F(TCSETS),   F(TCSETSW), F(TCSETSF), F(TIOCGWINSZ),
	F(TIOCSWINSZ), F(FIONREAD), F(FIONBIO), F(FIOCLEX), F(FIONCLEX),
};
static const struct flag_name arch_prctl_names[] = {
	F(ARCH_SET_GS),
	F(ARCH_SET_FS),
	F(ARCH_GET_FS),
	F(ARCH_GET_GS),
};
static const struct flag_name rlimit_names[] = {
	F(RLIMIT_CPU),	F(RLIMIT_FSIZE),  F(RLIMIT_DATA),	F(RLIMIT_STACK),
	F(RLIMIT_CORE), F(RLIMIT_NPROC),  F(RLIMIT_NOFILE),	F(RLIMIT_MEMLOCK),
	F(RLIMIT_AS),	F(RLIMIT_LOCKS),  F(RLIMIT_SIGPENDING), F(RLIMIT_MSGQUEUE),
	F(RLIMIT_NICE), F(RLIMIT_RTPRIO), F(RLIMIT_RTTIME),
};
static const struct flag_name madv_names[] = {
	F(MADV_NORMAL),	  F(MADV_RANDOM),     F(MADV_SEQUENTIAL), F(MADV_WILLNEED),
	F(MADV_DONTNEED), F(MADV_FREE),	      F(MADV_REMOVE),	  F(MADV_DONTFORK),
	F(MADV_DOFORK),	  F(MADV_HUGEPAGE),   F(MADV_NOHUGEPAGE), F(MADV_DONTDUMP),
	F(MADV_DODUMP),	  F(MADV_WIPEONFORK), F(MADV_KEEPONFORK),
};
static const struct flag_name sighow_names[] = {F(SIG_BLOCK), F(SIG_UNBLOCK), F(SIG_SETMASK)};
static const struct flag_name poll_names[] = {
	F(POLLIN),     F(POLLPRI),    F(POLLOUT),    F(POLLERR),    F(POLLHUP),	  F(POLLNVAL),
	F(POLLRDNORM), F(POLLRDBAND), F(POLLWRNORM), F(POLLWRBAND), F(POLLRDHUP),
};
static const struct flag_name epoll_names[] = {
	F(EPOLLIN),	F(EPOLLPRI),	   F(EPOLLOUT),	   F(EPOLLERR),	    F(EPOLLHUP),
	F(EPOLLRDNORM), F(EPOLLRDBAND),	   F(EPOLLWRNORM), F(EPOLLWRBAND),  F(EPOLLMSG),
	F(EPOLLRDHUP),	F(EPOLLEXCLUSIVE), F(EPOLLWAKEUP), F(EPOLLONESHOT), F(EPOLLET),
};
static const struct flag_name epoll_op_names[] = {F(EPOLL_CTL_ADD), F(EPOLL_CTL_DEL),
						  F(EPOLL_CTL_MOD)};
static const struct flag_name prctl_names[] = {
	F(PR_SET_PDEATHSIG),
	F(PR_GET_PDEATHSIG),
	F(PR_GET_DUMPABLE),
	F(PR_SET_DUMPABLE),
	F(PR_GET_KEEPCAPS),
	F(PR_SET_KEEPCAPS),
	F(PR_GET_TIMING),
	F(PR_SET_TIMING),
	F(PR_SET_NAME),
	F(PR_GET_NAME),
	F(PR_GET_SECCOMP),
	F(PR_SET_SECCOMP),
	F(PR_CAPBSET_READ),
	F(PR_CAPBSET_DROP),
	F(PR_GET_TSC),
	F(PR_SET_TSC),
	F(PR_GET_SECUREBITS),
	F(PR_SET_SECUREBITS),
	F(PR_SET_TIMERSLACK),
	F(PR_GET_TIMERSLACK),
	F(PR_MCE_KILL),
	F(PR_MCE_KILL_GET),
	F(PR_SET_MM),
	F(PR_SET_CHILD_SUBREAPER),
	F(PR_GET_CHILD_SUBREAPER),
	F(PR_SET_NO_NEW_PRIVS),
	F(PR_GET_NO_NEW_PRIVS),
	F(PR_GET_TID_ADDRESS),
	F(PR_SET_THP_DISABLE),
	F(PR_GET_THP_DISABLE),
	F(PR_CAP_AMBIENT),
	{0x59616d61, "PR_SET_PTRACER"},
	{0x53564d41, "PR_SET_VMA"},
};
static const struct flag_name policy_names[] = {
	F(SCHED_OTHER), F(SCHED_FIFO), F(SCHED_RR),
	F(SCHED_BATCH), F(SCHED_IDLE), {6, "SCHED_DEADLINE"},
};
#undef F

static void put_symbol(uint64_t v, const struct flag_name *f, size_t n)
{
	const char *s = symbol(v, f, n);

	if (s)
		put("%s", s);
	else
		put("%lld", (long long)v);
}

static void put_arg(struct task *t, uint8_t fmt, uint64_t v, uint64_t next)
{
	switch (fmt) {
	case A_INT:
	case A_FD:
		put("%d", (int)v);
		break;
	case A_UINT:
		put("%llu", (unsigned long long)v);
		break;
	case A_PTR:
		if (v)
			put("0x%llx", (unsigned long long)v);
		else
			put("NULL");
		break;
	case A_STR:
		put_guest_str(t, v);
		break;
	case A_BUF_IN:
		put_guest_buf(t, v, next);
		break;
	case A_SOCKADDR:
		put_guest_sockaddr(t, v, next);
		break;
	case A_OCT:
		put("0%llo", (unsigned long long)v);
		break;
	case A_PROT:
		put_flags(v, prot_names, ARRAY_SIZE(prot_names), "PROT_NONE");
		break;
	case A_MMAP_FLAGS:
		put_flags(v, map_names, ARRAY_SIZE(map_names), "0");
		break;
	case A_OPEN_FLAGS:
		put_flags(v, open_names, ARRAY_SIZE(open_names), "0");
		break;
	case A_SIGNAL: {
		const char *abbrev = sigabbrev_np((int)v);
		if (abbrev)
			put("SIG%s", abbrev);
		else
			put("%d", (int)v);
		break;
	}
	case A_SIGHOW:
		put_symbol(v, sighow_names, ARRAY_SIZE(sighow_names));
		break;
	case A_CLOCK:
		put_symbol(v, clock_names, ARRAY_SIZE(clock_names));
		break;
	case A_FCNTL_CMD:
		put_symbol(v, fcntl_names, ARRAY_SIZE(fcntl_names));
		break;
	case A_IOCTL_REQ:
		if (symbol(v, ioctl_names, ARRAY_SIZE(ioctl_names)))
			put_symbol(v, ioctl_names, ARRAY_SIZE(ioctl_names));
		else
			put("0x%llx", (unsigned long long)v);
		break;
	case A_ARCH_PRCTL:
		if (symbol(v, arch_prctl_names, ARRAY_SIZE(arch_prctl_names)))
			put_symbol(v, arch_prctl_names, ARRAY_SIZE(arch_prctl_names));
		else
			put("0x%llx", (unsigned long long)v);
		break;
	case A_RLIMIT_RES:
		put_symbol(v, rlimit_names, ARRAY_SIZE(rlimit_names));
		break;
	case A_PRCTL:
		put_symbol((uint32_t)v, prctl_names, ARRAY_SIZE(prctl_names));
		break;
	case A_SCHED_POLICY:
		put_symbol((uint32_t)v & ~0x40000000u, policy_names, ARRAY_SIZE(policy_names));
		if (v & 0x40000000u)
			put("|SCHED_RESET_ON_FORK");
		break;
	case A_MADVICE:
		put_symbol(v, madv_names, ARRAY_SIZE(madv_names));
		break;
	case A_DIRFD:
		if ((int)v == AT_FDCWD)
			put("AT_FDCWD");
		else
			put("%d", (int)v);
		break;
	case A_STRV: {
		uint64_t p;
		int i;
		if (!v) {
			put("NULL");
			break;
		}
		put("[");
		for (i = 0; i < 8; i++) {
			if (mm_copy_in(t->mm, &p, v + (uint64_t)i * 8, sizeof(p)) < 0 || !p)
				break;
			put(i ? ", " : "");
			put_guest_str(t, p);
		}
		put(i == 8 ? ", ...]" : "]");
		break;
	}
	case A_POLLFDS: {
		struct {
			int32_t fd;
			int16_t events, revents;
		} pfd;
		uint64_t i;
		if (!v || next > 1024 * 1024) {
			put(v ? "0x%llx" : "NULL", (unsigned long long)v);
			break;
		}
		put("[");
		for (i = 0; i < next && i < 8; i++) {
			if (mm_copy_in(t->mm, &pfd, v + i * sizeof(pfd), sizeof(pfd)) < 0)
				break;
			put("%s{fd=%d, events=", i ? ", " : "", pfd.fd);
			put_flags((uint16_t)pfd.events, poll_names, ARRAY_SIZE(poll_names), "0");
			put("}");
		}
		put(i < next ? "%s...]" : "]", i ? ", " : "");
		break;
	}
	case A_EPOLL_OP:
		put_symbol(v, epoll_op_names, ARRAY_SIZE(epoll_op_names));
		break;
	case A_EPOLL_EVENT: {
		struct {
			uint32_t events;
			uint64_t data;
		} __attribute__((packed)) ev;
		if (v && mm_copy_in(t->mm, &ev, v, sizeof(ev)) == 0) {
			put("{events=");
			put_flags(ev.events, epoll_names, ARRAY_SIZE(epoll_names), "0");
			put(", data=0x%llx}", (unsigned long long)ev.data);
		} else {
			put(v ? "0x%llx" : "NULL", (unsigned long long)v);
		}
		break;
	}
	case A_TIMESPEC: {
		struct {
			int64_t s, ns;
		} ts;
		if (v && mm_copy_in(t->mm, &ts, v, sizeof(ts)) == 0)
			put("{tv_sec=%lld, tv_nsec=%lld}", (long long)ts.s, (long long)ts.ns);
		else
			put(v ? "0x%llx" : "NULL", (unsigned long long)v);
		break;
	}
	case A_HEX:
	default:
		put("0x%llx", (unsigned long long)v);
		break;
	}
}

void strace_enter(struct task *t, const struct syscall_desc *d, const struct syscall_args *a)
{
	const char *name = syscall_name(a->nr);
	unsigned n = d && d->fn ? d->nargs : 6;

	len = 0;
	put("[pid %d] ", t->tid);
	if (name)
		put("%s(", name);
	else
		put("syscall_%llu(", (unsigned long long)a->nr);
	for (unsigned i = 0; i < n; i++) {
		uint8_t fmt = d && d->fn ? d->fmt[i] : A_HEX;
		if (i)
			put(", ");
		if (fmt == A_BUF_OUT) {
			/* Filled in on exit; remember where it goes with a marker. */
			put("\x01%u", i);
			continue;
		}
		put_arg(t, fmt, a->a[i], i + 1 < 6 ? a->a[i + 1] : 0);
	}
	put(")");
}

void strace_exit(struct task *t, const struct syscall_desc *d, const struct syscall_args *a,
		 long ret)
{
	char *marker = memchr(line, '\x01', len);

	/* An output buffer: splice its contents (as many bytes as the call returned) in. */
	if (marker) {
		char tail[LINE_MAX_LEN];
		unsigned i = (unsigned)(marker[1] - '0');
		size_t head = (size_t)(marker - line);
		snprintf(tail, sizeof(tail), "%s", marker + 2);
		len = head;
		if (ret >= 0)
			put_guest_buf(t, a->a[i], (uint64_t)ret);
		else
			put("0x%llx", (unsigned long long)a->a[i]);
		put("%s", tail);
	}
	if (__atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & WORK_KILL)
		put(" = ?");
	else if (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND ||
		 ret == -ERESTART_RESTARTBLOCK)
		put(" = ? ERESTART%s (to be restarted)", ret == -ERESTARTSYS	  ? "SYS"
							 : ret == -ERESTARTNOINTR ? "NOINTR"
							 : ret == -ERESTARTNOHAND
								 ? "NOHAND"
								 : "_RESTARTBLOCK");
	else if (ret < 0 && ret > -4096)
		put(" = -1 %s (%s)", strerrorname_np((int)-ret) ? strerrorname_np((int)-ret) : "E?",
		    strerror((int)-ret));
	else if (d && d->ret == A_HEX)
		put(" = 0x%llx", (unsigned long long)ret);
	else
		put(" = %ld", ret);
	rung_log(LOG_LEVEL_INFO, "%.*s", (int)len, line);
}
