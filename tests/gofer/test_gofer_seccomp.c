/*
 * Gofer tests: the seccomp allowlist. The filter is applied in a forked
 * child, which then makes one system call: allowed ones return, anything
 * else kills the child with SIGSYS. And the ring's opcode restrictions.
 */
#include "config.h"
#include "gofer/serve.h"
#include "gofer/server.h"
#include "lib/error.h"
#include "tests/unit/unit.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum probe {
	PROBE_NONE,	      /* allowed calls only, then exit 0 */
	PROBE_SOCKET,	      /* socket() */
	PROBE_EXECVE,	      /* execve() */
	PROBE_OPENAT_CWD,     /* openat(AT_FDCWD, ...): only /proc/self/fd may be the dirfd */
	PROBE_MMAP_EXEC,      /* an executable mapping */
	PROBE_IO_URING_SETUP, /* no new rings after confinement */
	PROBE_PTRACE,
	PROBE_WRITE_FILE, /* write() to something other than stdio */
};

/* Run probe under the filter in a child; returns its wait status. */
static int run(enum probe probe)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rung_error err = {0};
		int procfd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		char buf[256];
		void *p;

		if (procfd < 0 || fd < 0 || gofer_seccomp_install(procfd, &err) < 0)
			_exit(100);
		/* Allowed: what the serving loop does. */
		snprintf(buf, sizeof(buf), "%d", fd);
		if (write(STDERR_FILENO, "", 0) < 0)
			_exit(101);
		p = malloc(1 << 20); /* mmap */
		if (!p)
			_exit(102);
		free(p);
		int again = openat(procfd, buf, O_WRONLY | O_CLOEXEC);
		if (again < 0)
			_exit(103);
		close(again);
		/* An error message, as the gofer's last words would be (strerror, malloc). */
		rung_error_make(&err, EPIPE, "channel %d", 3);
		free(rung_error_string(&err));
		rung_error_release(&err);
		switch (probe) {
		case PROBE_NONE:
			break;
		case PROBE_SOCKET:
			socket(AF_INET, SOCK_STREAM, 0);
			break;
		case PROBE_EXECVE: {
			char *argv[] = {"/bin/true", NULL};
			execve(argv[0], argv, argv + 1);
			break;
		}
		case PROBE_OPENAT_CWD:
			openat(AT_FDCWD, "/etc/hostname", O_RDONLY);
			break;
		case PROBE_MMAP_EXEC:
			mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			break;
		case PROBE_IO_URING_SETUP:
			syscall(__NR_io_uring_setup, 4, buf);
			break;
		case PROBE_PTRACE:
			syscall(__NR_ptrace, 0, 0, 0, 0);
			break;
		case PROBE_WRITE_FILE:
			if (write(fd, "x", 1) < 0)
				_exit(104);
			break;
		}
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static void expect_sigsys(enum probe probe)
{
	int status = run(probe);

	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "probe %d: status %#x, not SIGSYS", probe, status);
}

START_TEST(test_allowed_calls_pass)
{
	int status = run(PROBE_NONE);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}
END_TEST

START_TEST(test_socket_killed)
{
	expect_sigsys(PROBE_SOCKET);
}
END_TEST

START_TEST(test_execve_killed)
{
	expect_sigsys(PROBE_EXECVE);
}
END_TEST

START_TEST(test_openat_outside_procfd_killed)
{
	expect_sigsys(PROBE_OPENAT_CWD);
}
END_TEST

START_TEST(test_exec_mapping_killed)
{
	expect_sigsys(PROBE_MMAP_EXEC);
}
END_TEST

START_TEST(test_io_uring_setup_killed)
{
	expect_sigsys(PROBE_IO_URING_SETUP);
}
END_TEST

START_TEST(test_ptrace_killed)
{
	expect_sigsys(PROBE_PTRACE);
}
END_TEST

START_TEST(test_write_to_file_killed)
{
	expect_sigsys(PROBE_WRITE_FILE);
}
END_TEST

/* Submit sqe's opcode (prepared by the caller) and return its result. */
static int ring_try(struct gofer_server *srv, struct io_uring_sqe *sqe)
{
	struct io_uring_cqe *cqe;
	int res;

	ck_assert_int_eq(io_uring_submit(&srv->ring), 1);
	ck_assert_int_eq(io_uring_wait_cqe(&srv->ring, &cqe), 0);
	res = cqe->res;
	io_uring_cqe_seen(&srv->ring, cqe);
	return res;
}

/* The ring runs the gofer's opcodes only, and no SQE flags. */
START_TEST(test_ring_restricted)
{
	struct gofer_server *srv = NULL;
	struct rung_error err = {0};
	struct io_uring_sqe *sqe;
	int sp[2], procfd, rootfd;
	char c;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	procfd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(gofer_server_new(&sp[0], 1, procfd, &rootfd, 1, true, &srv, &err), 0);

	sqe = io_uring_get_sqe(&srv->ring);
	io_uring_prep_nop(sqe);
	ck_assert_int_eq(ring_try(srv, sqe), -EACCES);
	sqe = io_uring_get_sqe(&srv->ring);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM, 0, 0);
	ck_assert_int_eq(ring_try(srv, sqe), -EACCES);
	sqe = io_uring_get_sqe(&srv->ring);
	io_uring_prep_read(sqe, sp[0], &c, 1, 0);
	sqe->flags |= IOSQE_IO_LINK;
	ck_assert_int_eq(ring_try(srv, sqe), -EACCES);
	/* An allowed one: a read (the peer has sent nothing, so close it first). */
	close(sp[1]);
	sqe = io_uring_get_sqe(&srv->ring);
	io_uring_prep_read(sqe, sp[0], &c, 1, 0);
	ck_assert_int_eq(ring_try(srv, sqe), 0);
	/* Nor can it be reconfigured. */
	{
		struct io_uring_probe *probe =
			calloc(1, sizeof(*probe) + 256 * sizeof(probe->ops[0]));

		ck_assert_int_eq(syscall(__NR_io_uring_register, srv->ring.ring_fd,
					 IORING_REGISTER_PROBE, probe, 256),
				 -1);
		ck_assert_int_eq(errno, EACCES);
		free(probe);
	}
	gofer_server_free(srv);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gofer seccomp");
	TCase *tc = tcase_create("filter");
	TCase *ring = tcase_create("ring");

	tcase_add_test(tc, test_allowed_calls_pass);
	tcase_add_test(tc, test_socket_killed);
	tcase_add_test(tc, test_execve_killed);
	tcase_add_test(tc, test_openat_outside_procfd_killed);
	tcase_add_test(tc, test_exec_mapping_killed);
	tcase_add_test(tc, test_io_uring_setup_killed);
	tcase_add_test(tc, test_ptrace_killed);
	tcase_add_test(tc, test_write_to_file_killed);
	suite_add_tcase(s, tc);
	tcase_add_test(ring, test_ring_restricted);
	suite_add_tcase(s, ring);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
