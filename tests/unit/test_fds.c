/*
 * Unit tests: closing inherited descriptors (lib/fds.c), with close_range
 * and, with close_range made to fail with ENOSYS (a seccomp filter), one
 * by one. Each case runs in a child with descriptors of its own.
 */
#include "config.h"
#include "lib/fds.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Without close_range (as before Linux 5.9). */
static void no_close_range(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(close_range), 0) < 0 ||
	    seccomp_load(ctx) < 0)
		_exit(90);
	seccomp_release(ctx);
}

/* fds 10, 11, 12, 20 and 100 (copies of stdin); only 11 and 100 are kept. */
static void close_some(bool fallback)
{
	static const int made[] = {10, 11, 12, 20, 100};
	const int keep[] = {-1, 100, 2, 11};

	if (fallback)
		no_close_range();
	for (size_t i = 0; i < ARRAY_SIZE(made); i++)
		if (dup2(0, made[i]) != made[i])
			_exit(91);
	fds_close_from(10, keep, ARRAY_SIZE(keep));
	if (is_open(10) || !is_open(11) || is_open(12) || is_open(20) || !is_open(100))
		_exit(1);
	if (!is_open(0) || !is_open(1) || !is_open(2))
		_exit(2);
	if (fallback && (syscall(SYS_close_range, 3, 3, 0) != -1 || errno != ENOSYS))
		_exit(3);
}

/* fds_close_inherited keeps stdio and the log file only. */
static void close_inherited(bool fallback)
{
	struct rung_error err = {0};
	char path[] = "/tmp/rung-test-fds-XXXXXX";
	int tmp = mkstemp(path), log;

	if (tmp < 0 || rung_log_init(path, LOG_FORMAT_TEXT, false, &err) < 0)
		_exit(92);
	unlink(path);
	log = rung_log_fd();
	/* As `rung do 5</secret 7</dir` leaves them (above the log's). */
	if (dup2(0, log + 1) != log + 1 || dup2(0, log + 3) != log + 3 || dup2(0, 300) != 300)
		_exit(93);
	if (fallback)
		no_close_range();
	fds_close_inherited();
	if (is_open(log + 1) || is_open(log + 3) || is_open(300) || is_open(tmp) || !is_open(log))
		_exit(1);
	if (!is_open(0) || !is_open(1) || !is_open(2))
		_exit(2);
}

static int in_child(void (*fn)(bool), bool fallback)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fn(fallback);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(test_close_from_keeps)
{
	int status = in_child(close_some, _i);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fallback %d: status %#x", _i,
		      status);
}
END_TEST

START_TEST(test_close_inherited)
{
	int status = in_child(close_inherited, _i);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fallback %d: status %#x", _i,
		      status);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fds");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_close_from_keeps, 0, 2);
	tcase_add_loop_test(tc, test_close_inherited, 0, 2);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
