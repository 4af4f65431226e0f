/*
 * e2e guest: try to reach the host from inside the sandbox. Every system
 * call here would change the host (or read what it must not) if it reached
 * the host kernel; in the sandbox each must fail. One line per attempt:
 * "denied: WHAT (ERRNO)" or "ESCAPED: WHAT returned N"; the exit status is
 * the number of escapes. tests/e2e/isolation.sh checks the host afterwards.
 *
 * Usage (only ever under rung: it refuses to run unless it is pid 1):
 *   isolation CANARY_PID CANARY_FILE SCRATCH_DIR MODE [SANDBOX_FILE]
 * MODE is "hidden" when no host file may be visible (rung do --host-exec):
 * every file operation on a host path must fail. It is "rootfs" when the
 * host's / is the sandbox's root (rung do's default, read-only or under a
 * sandbox-private overlay): file operations on host paths may then work
 * inside the sandbox ("contained:" lines, not escapes), and only the host,
 * checked afterwards, can tell whether they stayed there. ",killall" appended to MODE adds
 * kill(-1, SIGKILL) in all three ABIs, tried only when nothing escaped
 * before (kill(CANARY_PID, SIGKILL) takes the same path). SANDBOX_FILE is
 * created in the sandbox's own writable file system: that works, and the
 * host must not see it.
 *
 * fork and execve are left out: once rung implements them, a child or a
 * new program stays inside the sandbox, which this program cannot tell
 * from the outside.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/reboot.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#define X32_BIT 0x40000000L

static int escaped, denied, rootfs;

static void result(long r, const char *what);

/*
 * sethostname/setdomainname change the sandbox's own names (its UTS
 * namespace): denied, or working inside while the host's names stay (the
 * script checks those). Anything else is an escape.
 */
static void sandbox_name(long nr, const char *what)
{
	struct utsname u;
	long r = syscall(nr, "rung-escaped", 12) < 0 ? -errno : 0;

	if (r < 0 || uname(&u) < 0) {
		result(r < 0 ? r : -errno, what);
		return;
	}
	if (strcmp(nr == SYS_sethostname ? u.nodename : u.domainname, "rung-escaped") == 0) {
		printf("denied: %s (sandbox-local)\n", what);
		denied++;
	} else {
		printf("ESCAPED: %s changed a name the sandbox does not see\n", what);
		escaped++;
	}
	fflush(stdout);
}

/*
 * mount, umount2 and unshare(CLONE_NEWUSER) change the sandbox's own mount
 * tree and user namespaces: denied, or working inside while the host's
 * mounts stay as they were (the script checks /proc/mounts and the scratch
 * directory). R is the raw kernel value.
 */
static void sandbox_local(long r, const char *what)
{
	if (r == 0) {
		printf("denied: %s (sandbox-local)\n", what);
		denied++;
		fflush(stdout);
		return;
	}
	result(r, what);
}

/* Record the result of one attempt: R is the raw kernel value (-errno on failure). */
static void result(long r, const char *what)
{
	if (r < 0 && r > -4096) {
		printf("denied: %s (%s)\n", what, strerrorname_np((int)-r));
		denied++;
	} else {
		printf("ESCAPED: %s returned %ld\n", what, r);
		escaped++;
	}
	fflush(stdout);
}

/* A file operation on a host path: it may work inside the sandbox when the
 * host's / is the sandbox's root, and must fail when host files are hidden. */
static void file_op(long r, const char *what)
{
	if (rootfs && r >= 0) {
		printf("contained: %s\n", what);
		fflush(stdout);
		return;
	}
	result(r, what);
}

/* A 64-bit system call, raw: -errno on failure, errno untouched. */
static long sys6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define sys(nr, ...) sys_n(nr, __VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define sys_n(nr, a1, a2, a3, a4, a5, a6, ...) \
	sys6(nr, (long)(a1), (long)(a2), (long)(a3), (long)(a4), (long)(a5), (long)(a6))

/* A 32-bit system call through int $0x80 (ia32 numbers, 32-bit pointers). */
static long int80(long nr, long a1, long a2, long a3)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(nr), "b"(a1), "c"(a2), "d"(a3) : "memory");
	/* The ia32 entry returns a 32-bit value in eax. */
	return (long)(int)ret;
}

static void processes(long canary)
{
	char buf[256];

	result(sys(SYS_kill, canary, SIGKILL), "kill(canary, SIGKILL)");
	result(sys(SYS_kill, canary, 0), "kill(canary, 0)");
	result(sys(SYS_tkill, canary, SIGKILL), "tkill(canary, SIGKILL)");
	result(sys(SYS_tgkill, canary, canary, SIGKILL), "tgkill(canary, canary, SIGKILL)");
	result(sys(SYS_kill, (1L << 32) | canary, SIGKILL), "kill with high pid bits");
	result(sys((1L << 32) | SYS_kill, canary, SIGKILL), "kill with high syscall-number bits");
	result(sys(SYS_pidfd_open, canary, 0), "pidfd_open(canary)");
	result(sys(SYS_ptrace, PTRACE_ATTACH, canary, 0, 0), "ptrace(PTRACE_ATTACH, canary)");
	{
		struct iovec local = {buf, sizeof(buf)}, remote = {(void *)0x400000, sizeof(buf)};
		result(sys(SYS_process_vm_readv, canary, &local, 1, &remote, 1, 0),
		       "process_vm_readv(canary)");
	}
}

static void machine(const char *scratch)
{
	char buf[256] = {0};
	long params[16] = {0};

	sandbox_local(sys(SYS_mount, "none", scratch, "tmpfs", 0, NULL), "mount(tmpfs, scratch)");
	sandbox_local(sys(SYS_mount, "/", scratch, NULL, MS_BIND, NULL),
		      "mount(/, scratch, MS_BIND)");
	sandbox_local(sys(SYS_umount2, scratch, MNT_DETACH), "umount2(scratch)");
	result(sys(SYS_reboot, 0x12345678, 0x87654321, LINUX_REBOOT_CMD_POWER_OFF, NULL),
	       "reboot(bad magic)");
	sandbox_name(SYS_sethostname, "sethostname");
	sandbox_name(SYS_setdomainname, "setdomainname");
	result(sys(SYS_delete_module, "rung_no_such_module", 0), "delete_module");
	result(sys(SYS_init_module, buf, 0, ""), "init_module");
	result(sys(SYS_syslog, 3 /* READ_ALL */, buf, sizeof(buf)), "syslog(READ_ALL)");
	result(sys(SYS_iopl, 3), "iopl(3)");
	result(sys(SYS_ioperm, 0x80, 1, 1), "ioperm(0x80)");
	sandbox_local(sys(SYS_unshare, CLONE_NEWUSER), "unshare(CLONE_NEWUSER)");
	result(sys(SYS_setns, 0, 0), "setns(0)");
	result(sys(SYS_io_uring_setup, 4, params), "io_uring_setup");
	result(sys(SYS_bpf, 0 /* MAP_CREATE */, buf, 0), "bpf");
	result(sys(SYS_perf_event_open, buf, 0, -1, -1, 0), "perf_event_open");
	result(sys(SYS_userfaultfd, 0), "userfaultfd");
}

static void files(const char *file, const char *scratch)
{
	char buf[256], path[512];
	long fd;

	file_op(sys(SYS_open, "/etc/passwd", O_RDONLY), "open(/etc/passwd)");
	file_op(sys(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY), "openat(/etc/passwd)");
	file_op(sys(SYS_open, "/../../../etc/passwd", O_RDONLY), "open(/../../../etc/passwd)");
	file_op(sys(SYS_open, "/proc/1/root/etc/passwd", O_RDONLY),
		"open(/proc/1/root/etc/passwd)");
	file_op(sys(SYS_open, "/proc/self/root/etc/passwd", O_RDONLY),
		"open(/proc/self/root/etc/passwd)");
	file_op(sys(SYS_open, file, O_RDONLY), "open(canary file, O_RDONLY)");
	file_op(sys(SYS_open, "/etc/passwd", O_WRONLY | O_APPEND), "open(/etc/passwd, O_WRONLY)");
	/* Change the canary file every way there is; with the host's / as the
	 * root, each change may work, on the sandbox's copy. */
	fd = sys(SYS_open, file, O_RDWR);
	file_op(fd, "open(canary file, O_RDWR)");
	if (fd >= 0)
		file_op(sys(SYS_write, fd, "ESCAPED\n", 8), "write to the canary file");
	file_op(sys(SYS_open, file, O_WRONLY | O_TRUNC), "open(canary file, O_TRUNC)");
	file_op(sys(SYS_chmod, file, 0), "chmod(canary file, 0)");
	file_op(sys(SYS_truncate, file, 0), "truncate(canary file, 0)");
	snprintf(path, sizeof(path), "%s/link", scratch);
	file_op(sys(SYS_link, file, path), "link(canary file, scratch/link)");
	snprintf(path, sizeof(path), "%s.moved", file);
	file_op(sys(SYS_rename, file, path), "rename(canary file, canary.moved)");
	file_op(sys(SYS_unlink, path), "unlink(canary.moved)");
	file_op(sys(SYS_unlink, file), "unlink(canary file)");
	file_op(sys(SYS_unlinkat, AT_FDCWD, file, 0), "unlinkat(canary file)");
	snprintf(path, sizeof(path), "%s/created", scratch);
	file_op(sys(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL, 0644), "create a file in scratch");
	snprintf(path, sizeof(path), "%s/symlink", scratch);
	file_op(sys(SYS_symlink, "/etc/passwd", path), "symlink in scratch");
	snprintf(path, sizeof(path), "%s/dir", scratch);
	file_op(sys(SYS_mkdir, path, 0755), "mkdir in scratch");
	/* A device node made in the sandbox opens the sandbox's devices, never the host's. */
	result(sys(SYS_mknod, "/dev/rung-blk", S_IFBLK | 0600, makedev(8, 0)) < 0
		       ? -EPERM
		       : sys(SYS_open, "/dev/rung-blk", O_RDONLY),
	       "mknod a host disk's block device and open it");
	result(sys(SYS_name_to_handle_at, AT_FDCWD, "/", buf, &path, 0), "name_to_handle_at(/)");
}

/*
 * An AF_NETLINK route socket is the sandbox's own (served by the sentry
 * from its configuration): opening one is fine, but a change through it
 * (lo down) must be refused. Anything else is an escape.
 */
static void netlink_change(void)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = RTM_NEWLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		       .nlmsg_seq = 1},
		 .i = {.ifi_index = 1, .ifi_change = 1 /* IFF_UP */}};
	char buf[512];
	long fd = sys(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), n;
	const struct nlmsghdr *h = (const void *)buf;

	if (fd < 0) {
		result(fd, "socket(AF_NETLINK, SOCK_RAW)");
		return;
	}
	n = sys(SYS_sendto, fd, &req, sizeof(req), 0, NULL, 0);
	if (n < 0) {
		result(n, "netlink RTM_NEWLINK (lo down)");
		close((int)fd);
		return;
	}
	n = sys(SYS_recvfrom, fd, buf, sizeof(buf), 0, NULL, NULL);
	close((int)fd);
	if (n >= (long)NLMSG_LENGTH(sizeof(struct nlmsgerr)) && h->nlmsg_type == NLMSG_ERROR &&
	    ((const struct nlmsgerr *)NLMSG_DATA(h))->error < 0) {
		printf("denied: netlink RTM_NEWLINK (lo down) (%s, a sandbox-local socket)\n",
		       strerrorname_np(-((const struct nlmsgerr *)NLMSG_DATA(h))->error));
		denied++;
		fflush(stdout);
		return;
	}
	result(n < 0 ? n : 0, "netlink RTM_NEWLINK (lo down)");
}

/*
 * AF_INET and AF_INET6 sockets live in the sandbox's own TCP/IP stack, in
 * a network namespace of the sandbox's with only a loopback (rung do's
 * default): nothing outside is reachable through them. AF_NETLINK route
 * sockets answer from the sandbox's configuration (sentry/net/netlink.c).
 */
static void network(void)
{
	struct sockaddr_in out = {.sin_family = AF_INET,
				  .sin_port = __builtin_bswap16(80),
				  .sin_addr.s_addr = __builtin_bswap32(0x01010101)};
	long fd;

	result(sys(SYS_socket, AF_INET, SOCK_RAW, 1 /* ICMP */), "socket(AF_INET, SOCK_RAW)");
	result(sys(SYS_socket, AF_PACKET, SOCK_RAW, 0), "socket(AF_PACKET, SOCK_RAW)");
	netlink_change();
	fd = sys(SYS_socket, AF_INET, SOCK_STREAM, 0);
	result(fd < 0 ? fd : sys(SYS_connect, fd, &out, sizeof(out)), "connect to 1.1.1.1:80");
	if (fd >= 0)
		close((int)fd);
	fd = sys(SYS_socket, AF_INET, SOCK_DGRAM, 0);
	result(fd < 0 ? fd : sys(SYS_sendto, fd, "x", 1, 0, &out, sizeof(out)),
	       "a datagram to 1.1.1.1:80");
	if (fd >= 0)
		close((int)fd);
}

/* The other system call ABIs: int $0x80 (ia32 numbers) and x32. Returns
 * the low (32-bit addressable) scratch page, or NULL. */
static char *other_abis(long canary, const char *file, const char *scratch)
{
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	if (low == MAP_FAILED) {
		printf("cannot map low memory for int $0x80 arguments\n");
		escaped++;
		low = NULL;
	} else {
		snprintf(low, 2048, "%s", file);
		snprintf(low + 2048, 2048, "%s", scratch);
		result(int80(37 /* kill */, canary, SIGKILL, 0), "int $0x80 kill(canary)");
		result(int80(10 /* unlink */, (long)(uintptr_t)low, 0, 0),
		       "int $0x80 unlink(canary file)");
		result(int80(15 /* chmod */, (long)(uintptr_t)low, 0, 0),
		       "int $0x80 chmod(canary file)");
		result(int80(21 /* mount */, (long)(uintptr_t)low, (long)(uintptr_t)low + 2048, 0),
		       "int $0x80 mount");
		result(int80(74 /* sethostname */, (long)(uintptr_t)low, 4, 0),
		       "int $0x80 sethostname");
	}
	result(sys(X32_BIT | SYS_kill, canary, SIGKILL), "x32 kill(canary)");
	result(sys(X32_BIT | SYS_unlink, file), "x32 unlink(canary file)");
	result(sys(X32_BIT | SYS_mount, "none", scratch, "tmpfs", 0, NULL), "x32 mount");
	return low;
}

int main(int argc, char **argv)
{
	const char *file, *scratch;
	long canary, r;
	int killall;
	char *low;

	if (argc < 5) {
		fprintf(stderr, "usage: isolation CANARY_PID CANARY_FILE SCRATCH_DIR "
				"hidden|rootfs[,killall] [SANDBOX_FILE]\n");
		return 100;
	}
	/* Outside the sandbox these calls would really happen: refuse. */
	if (getpid() != 1) {
		fprintf(stderr, "isolation: not pid 1, so not in a sandbox: refusing to run\n");
		return 101;
	}
	canary = strtol(argv[1], NULL, 10);
	file = argv[2];
	scratch = argv[3];
	rootfs = strncmp(argv[4], "rootfs", 6) == 0;
	killall = strstr(argv[4], ",killall") != NULL;
	if (canary <= 1) {
		fprintf(stderr, "isolation: bad canary pid\n");
		return 100;
	}

	processes(canary);
	machine(scratch);
	files(file, scratch);
	network();
	low = other_abis(canary, file, scratch);

	/* A file in the sandbox's own writable file system stays there. */
	if (argc > 5) {
		r = sys(SYS_open, argv[5], O_WRONLY | O_CREAT, 0644);
		printf("sandbox file %s: %s\n", argv[5],
		       r >= 0 ? "created" : strerrorname_np((int)-r));
	}

	if (killall) {
		if (escaped) {
			printf("not trying kill(-1, SIGKILL): something escaped already\n");
		} else {
			/* kill(canary) was denied above by the same path these take.
			 * In the sandbox the caller is alone, and kill(-1) never
			 * signals the caller: Linux fails it with ESRCH. */
			result(sys(SYS_kill, -1, SIGKILL), "kill(-1, SIGKILL)");
			if (low)
				result(int80(37, -1, SIGKILL, 0), "int $0x80 kill(-1, SIGKILL)");
			result(sys(X32_BIT | SYS_kill, -1, SIGKILL), "x32 kill(-1, SIGKILL)");
		}
	}

	printf("summary: %d denied, %d escaped\n", denied, escaped);
	return escaped > 100 ? 100 : escaped;
}
