/* Unit tests: the error object (lib/error.c): make, wrap, string, print once. */
#include "config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* make fills the error and returns -status - 1: always negative, even for status 0. */
START_TEST(test_make)
{
	struct rung_error err = {0};

	ck_assert_int_eq(rung_error_make(&err, ENOENT, "open `%s`", "/x"), -ENOENT - 1);
	ck_assert_int_eq(err.status, ENOENT);
	ck_assert_str_eq(err.msg, "open `/x`");
	/* A second make replaces the first. */
	ck_assert_int_eq(rung_error_make(&err, 0, "no errno here"), -1);
	ck_assert_int_eq(err.status, 0);
	ck_assert_str_eq(err.msg, "no errno here");
	/* Without an error object only the value comes back. */
	ck_assert_int_eq(rung_error_make(NULL, EPERM, "dropped %d", 1), -EPERM - 1);
	rung_error_release(&err);
	ck_assert_ptr_null(err.msg);
	ck_assert_int_eq(err.status, 0);
	rung_error_release(&err); /* twice is harmless */
}
END_TEST

/* wrap prepends context on the way up and keeps the status and return value. */
START_TEST(test_wrap)
{
	struct rung_error err = {0};
	char *s;

	rung_error_make(&err, EACCES, "open `%s`", "/etc/shadow");
	ck_assert_int_eq(rung_error_wrap(&err, "load config"), -EACCES - 1);
	ck_assert_str_eq(err.msg, "load config: open `/etc/shadow`");
	ck_assert_int_eq(rung_error_wrap(&err, "start sandbox %s", "abc"), -EACCES - 1);
	ck_assert_str_eq(err.msg, "start sandbox abc: load config: open `/etc/shadow`");
	ck_assert_int_eq(err.status, EACCES);
	s = rung_error_string(&err);
	ck_assert_str_eq(s,
			 "start sandbox abc: load config: open `/etc/shadow`: Permission denied");
	free(s);
	rung_error_release(&err);

	/* Wrapping an error with no message still gives a readable one. */
	ck_assert_int_eq(rung_error_wrap(&err, "ctx"), -1);
	ck_assert_str_eq(err.msg, "ctx: (null)");
	rung_error_release(&err);
}
END_TEST

/* The printable string: strerror only when there is an errno. */
START_TEST(test_string)
{
	struct rung_error err = {0};
	char *s;

	s = rung_error_string(&err);
	ck_assert_str_eq(s, "unknown error");
	free(s);
	rung_error_make(&err, 0, "bad flag `%s`", "--nope");
	s = rung_error_string(&err);
	ck_assert_str_eq(s, "bad flag `--nope`");
	free(s);
	rung_error_make(&err, ENOMEM, "alloc");
	s = rung_error_string(&err);
	ck_assert_str_eq(s, "alloc: Cannot allocate memory");
	free(s);
	rung_error_release(&err);
}
END_TEST

/* Read everything written to fd since offset 0 into buf (NUL-terminated). */
static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n;

	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	n = read(fd, buf, size - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = 0;
}

/* print logs the error once (on stderr by default) and releases it. */
START_TEST(test_print_to_stderr)
{
	char path[] = "/tmp/rung-test-err-XXXXXX", buf[512];
	struct rung_error err = {0};
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	rung_error_make(&err, ENOENT, "exec `%s`", "/bin/none");
	rung_error_wrap(&err, "run");
	rung_error_print(&err, "do");
	ck_assert_ptr_null(err.msg);
	ck_assert_int_eq(err.status, 0);
	rung_error_make(&err, 0, "plain");
	rung_error_print(&err, NULL);
	dup2(saved, STDERR_FILENO);
	slurp(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rung: do: run: exec `/bin/none`: No such file or directory\n"
			      "rung: plain\n");
	close(fd);
	close(saved);
}
END_TEST

/* With --log FILE the error goes to the file (as JSON) and, once, to stderr for a person. */
START_TEST(test_print_to_log_file)
{
	char logpath[] = "/tmp/rung-test-log-XXXXXX", errpath[] = "/tmp/rung-test-err-XXXXXX";
	char buf[512];
	struct rung_error err = {0};
	int logfd = mkstemp(logpath), errfd = mkstemp(errpath), saved = dup(STDERR_FILENO);

	ck_assert_int_ge(logfd, 0);
	ck_assert_int_ge(errfd, 0);
	ck_assert_int_eq(rung_log_init(logpath, LOG_FORMAT_JSON, false, &err), 0);
	ck_assert_int_eq(dup2(errfd, STDERR_FILENO), STDERR_FILENO);
	rung_error_make(&err, EINVAL, "bad \"value\"");
	rung_error_print(&err, "parse");
	dup2(saved, STDERR_FILENO);

	slurp(errfd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "rung: parse: bad \"value\": Invalid argument\n");
	slurp(logfd, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf,
				     "{\"level\":\"error\",\"msg\":\"parse: bad \\\"value\\\": "
				     "Invalid argument\",\"time\":\""));
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + strlen(buf) - 1); /* one line */
	unlink(logpath);
	unlink(errpath);
	close(logfd);
	close(errfd);
	close(saved);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_make);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_string);
	tcase_add_test(tc, test_print_to_stderr);
	tcase_add_test(tc, test_print_to_log_file);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
