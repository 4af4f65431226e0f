/*
 * Unit tests of isolation level 1's pure parts: choosing the level (flag,
 * annotation), config.json's device fields, and linux.seccomp compiled with
 * libseccomp (refusals that name the field, and a filter that really
 * answers mkdir with the rule's errno in a child that loads it).
 */
#include "config.h"
#include "runsc-compat/cli.h"
#include "runsc-compat/isolation.h"
#include "runsc-compat/level1_setup.h"
#include "runsc-compat/spec.h"
#include "runsc-compat/state.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

START_TEST(test_parse)
{
	struct container_state st = {0};
	enum isolation l;

	ck_assert_int_eq(isolation_parse("sentry", &l), 0);
	ck_assert_int_eq(l, ISOLATION_SENTRY);
	ck_assert_int_eq(isolation_parse("container", &l), 0);
	ck_assert_int_eq(l, ISOLATION_CONTAINER);
	ck_assert_str_eq(isolation_name(l), "container");
	ck_assert_int_eq(isolation_parse("microvm", &l), 0);
	ck_assert_int_eq(l, ISOLATION_MICROVM);
	ck_assert_int_lt(isolation_parse("frob", &l), 0);
	ck_assert_int_lt(isolation_parse(NULL, &l), 0);
	/* state.json's isolation field marks a level-1 container. */
	ck_assert(!isolation_is_container(&st));
	st.isolation = "sentry";
	ck_assert(!isolation_is_container(&st));
	st.isolation = "container";
	ck_assert(isolation_is_container(&st));
}
END_TEST

static int choose(const char *flag, const char *annotations)
{
	struct global_args g = {.isolation = flag};
	struct isolation_workload w = {.annotations = annotations};
	struct rung_error err = {0};
	enum isolation out = ISOLATION_AUTO;
	bool record;

	if (isolation_choose(&g, &w, &out, &record, &err) < 0) {
		ck_assert_ptr_nonnull(strstr(err.msg, "annotation `dev.rung.isolation`"));
		rung_error_release(&err);
		return -1;
	}
	return (int)out;
}

/* The annotation without --isolation, the higher of the two with it (never
 * below the level asked for: level 1 is below the sentry), else the
 * sentry; an annotation that names no level is an error. */
START_TEST(test_select)
{
	const char *ann = "{\"dev.rung.isolation\": \"container\"}";
	const char *sentry = "{\"dev.rung.isolation\": \"sentry\"}";
	const char *vm = "{\"dev.rung.isolation\": \"microvm\"}";
	const char *bad = "{\"dev.rung.isolation\": \"vm2\"}";

	ck_assert_int_eq(choose(NULL, "{}"), ISOLATION_SENTRY);
	ck_assert_int_eq(choose(NULL, NULL), ISOLATION_SENTRY);
	ck_assert_int_eq(choose(NULL, ann), ISOLATION_CONTAINER);
	ck_assert_int_eq(choose("sentry", ann), ISOLATION_SENTRY);
	ck_assert_int_eq(choose("container", "{}"), ISOLATION_CONTAINER);
	ck_assert_int_eq(choose("container", ann), ISOLATION_CONTAINER);
	ck_assert_int_eq(choose("container", sentry), ISOLATION_SENTRY);
	ck_assert_int_eq(choose("container", vm), ISOLATION_MICROVM);
	ck_assert_int_eq(choose("microvm", ann), ISOLATION_MICROVM);
	ck_assert_int_eq(choose("auto", ann), ISOLATION_CONTAINER);
	ck_assert_int_eq(choose(NULL, bad), -1);
	ck_assert_int_eq(choose("container", bad), -1);
	ck_assert_int_eq(choose("sentry", "{\"dev.rung.isolation\": 2}"), -1);
}
END_TEST

/* Write config.json with linux set to linux_json in a new bundle; load it. */
static int load(const char *linux_json, struct oci_spec **spec, struct rung_error *err)
{
	char dir[] = "/tmp/rung-unit-level1-XXXXXX", *path;
	FILE *f;
	int ret;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/config.json", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"{\"ociVersion\": \"1.0.2\", \"process\": {\"args\": [\"sh\"], \"cwd\": \"/\"}, "
		"\"root\": {\"path\": \"rootfs\"}, \"linux\": %s}",
		linux_json);
	fclose(f);
	ret = spec_load(dir, spec, err);
	unlink(path);
	rmdir(dir);
	free(path);
	return ret;
}

START_TEST(test_devices)
{
	struct rung_error err = {0};
	struct oci_spec *s = NULL;

	ck_assert_int_eq(
		load("{\"devices\": [{\"path\": \"/dev/fuse\", \"type\": \"c\", \"major\": 10, "
		     "\"minor\": 229, \"fileMode\": 384, \"uid\": 5, \"gid\": 6}, "
		     "{\"path\": \"/dev/p\", \"type\": \"p\"}], "
		     "\"resources\": {\"devices\": [{\"allow\": false, \"access\": \"rwm\"}, "
		     "{\"allow\": true, \"type\": \"c\", \"major\": 1, \"access\": \"r\"}]}}",
		     &s, &err),
		0);
	ck_assert_uint_eq(s->n_devices, 2);
	ck_assert_str_eq(s->devices[0].path, "/dev/fuse");
	ck_assert_int_eq(s->devices[0].type, 'c');
	ck_assert_int_eq(s->devices[0].major, 10);
	ck_assert_int_eq(s->devices[0].minor, 229);
	ck_assert_uint_eq(s->devices[0].file_mode, 0600);
	ck_assert_uint_eq(s->devices[0].uid, 5);
	ck_assert_uint_eq(s->devices[0].gid, 6);
	ck_assert_int_eq(s->devices[1].type, 'p');
	ck_assert_uint_eq(s->devices[1].file_mode, 0666);
	ck_assert_uint_eq(s->resources.n_devices, 2);
	ck_assert(!s->resources.devices[0].allow);
	ck_assert_int_eq(s->resources.devices[0].type, 'a');
	ck_assert_int_eq(s->resources.devices[1].major, 1);
	ck_assert_int_eq(s->resources.devices[1].minor, -1); /* absent: any */
	ck_assert_str_eq(s->resources.devices[1].access, "r");
	spec_free(s);

	ck_assert_int_lt(load("{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"z\", "
			      "\"major\": 1, \"minor\": 1}]}",
			      &s, &err),
			 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "linux.devices[0].type"));
	ck_assert_int_lt(load("{\"devices\": [{\"path\": \"dev/x\", \"type\": \"c\", "
			      "\"major\": 1, \"minor\": 1}]}",
			      &s, &err),
			 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "must be absolute"));
	ck_assert_int_lt(load("{\"devices\": [{\"path\": \"/dev/x\", \"type\": \"b\"}]}", &s, &err),
			 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "needs major and minor"));
	ck_assert_int_lt(load("{\"resources\": {\"devices\": [{\"allow\": true, \"access\": "
			      "\"rwx\"}]}}",
			      &s, &err),
			 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "linux.resources.devices"));
	rung_error_release(&err);
}
END_TEST

/* A profile's compile error names what is wrong. */
static void refused(const char *json, const char *want)
{
	struct rung_error err = {0};
	void *filter = (void *)1;

	ck_assert_int_lt(level1_seccomp_compile(json, &filter, &err), 0);
	ck_assert_ptr_null(filter);
	if (!strstr(err.msg, want))
		ck_abort_msg("`%s`: error `%s` lacks `%s`", json, err.msg, want);
	rung_error_release(&err);
}

START_TEST(test_seccomp_refusals)
{
	refused("[]", "linux.seccomp");
	refused("{}", "needs an action");
	refused("{\"defaultAction\": \"SCMP_ACT_FROB\"}", "unknown action `SCMP_ACT_FROB`");
	refused("{\"defaultAction\": \"SCMP_ACT_NOTIFY\"}", "SCMP_ACT_NOTIFY");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/x\"}",
		"listenerPath");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_PDP11\"]}",
		"unknown `PDP11`");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_X\"]}",
		"SECCOMP_FILTER_FLAG_X");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		"\"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 6, \"value\": 0, \"op\": "
		"\"SCMP_CMP_EQ\"}]}]}",
		"args[0]");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], "
		"\"action\": \"SCMP_ACT_ERRNO\", \"args\": [{\"index\": 0, \"value\": 0, \"op\": "
		"\"SCMP_CMP_ALMOST\"}]}]}",
		"known op");
	refused("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 70000}",
		"out of range");
	refused("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"action\": "
		"\"SCMP_ACT_ERRNO\"}]}",
		"syscalls[0].names");
}
END_TEST

/* The filter, loaded in a child: the rules decide, the rest passes. */
START_TEST(test_seccomp_filter)
{
	const char *json =
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\", "
		"\"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"], "
		"\"syscalls\": ["
		"{\"names\": [\"mkdir\", \"mkdirat\", \"no_such_call_anywhere\"], \"action\": "
		"\"SCMP_ACT_ERRNO\", \"errnoRet\": 95},"
		"{\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ALLOW\"},"
		"{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": "
		"[{\"index\": 0, \"value\": 12345, \"op\": \"SCMP_CMP_EQ\"}]},"
		"{\"names\": [\"umask\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 33, "
		"\"args\": "
		"[{\"index\": 0, \"value\": 7, \"op\": \"SCMP_CMP_EQ\"}, {\"index\": 0, \"value\": "
		"9, "
		"\"op\": \"SCMP_CMP_EQ\"}]}]}";
	struct rung_error err = {0};
	void *filter = NULL;
	int status;
	pid_t pid;

	ck_assert_int_eq(level1_seccomp_compile(json, &filter, &err), 0);
	ck_assert_ptr_nonnull(filter);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int bad = 0;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    level1_seccomp_load(filter, &err) < 0)
			_exit(10);
		/* mkdir fails with the rule's errno before the kernel looks at the path. */
		bad |= (mkdir("/proc/no/such/dir", 0700) != -1 || errno != EOPNOTSUPP) << 0;
		bad |= (getpid() <= 0) << 1;
		/* A condition on an argument: only the named value is refused. */
		bad |= (personality(12345) != -1 || errno != EPERM) << 2;
		bad |= (personality(0xffffffff) == -1) << 3;
		/* Two conditions on one argument: either refuses, nothing else.
		 * (glibc's umask cannot fail: it returns the raw -errno.) */
		bad |= (umask(7) != (mode_t)-EDOM) << 4;
		bad |= (umask(9) != (mode_t)-EDOM) << 5;
		bad |= (umask(022) == (mode_t)-EDOM) << 6;
		_exit(bad ? 20 + bad : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	level1_seccomp_release(filter);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("level1");
	TCase *tc = tcase_create("level1");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_select);
	tcase_add_test(tc, test_devices);
	tcase_add_test(tc, test_seccomp_refusals);
	tcase_add_test(tc, test_seccomp_filter);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
