/*
 * Unit tests: the credential rules of sentry/kernel/creds.c and the
 * scheduling inheritance of sentry/kernel/sched.c, in the cases a guest
 * test cannot reach where it runs as root with the host's capabilities:
 * exec's capability transformation (root, set-user-ID-like euid 0, ambient
 * capabilities, SECBIT_NOROOT, AT_SECURE), SECBIT_NO_SETUID_FIXUP, the
 * sandbox's group limit, and SCHED_RESET_ON_FORK.
 */
#include "config.h"
#include "sentry/kernel/creds.h"
#include "sentry/kernel/sched.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <string.h>

#define B(c) CAP_BIT(c)

/* Root gets bounding | inheritable at exec and keeps it effective. */
START_TEST(test_exec_root)
{
	struct creds c;

	creds_init(&c, 0, 0);
	c.cap_bounding = CAP_ALL_MASK & ~B(KCAP_SYS_ADMIN);
	c.cap_permitted = c.cap_effective = B(KCAP_KILL); /* whatever it had before */
	c.securebits = SECBIT_KEEP_CAPS;
	ck_assert(!creds_exec(&c));
	ck_assert_uint_eq(c.cap_permitted, CAP_ALL_MASK & ~B(KCAP_SYS_ADMIN));
	ck_assert_uint_eq(c.cap_effective, c.cap_permitted);
	ck_assert_uint_eq(c.securebits, 0); /* KEEP_CAPS does not survive exec */
}
END_TEST

/* A non-root process without ambient capabilities has none after exec;
 * with ambient ones, those become permitted and effective. */
START_TEST(test_exec_user_ambient)
{
	struct creds c;

	creds_init(&c, 1000, 1000);
	c.cap_permitted = c.cap_effective = c.cap_inheritable = B(KCAP_CHOWN) | B(KCAP_KILL);
	ck_assert(!creds_exec(&c));
	ck_assert_uint_eq(c.cap_permitted, 0);
	ck_assert_uint_eq(c.cap_effective, 0);

	creds_init(&c, 1000, 1000);
	c.cap_permitted = c.cap_inheritable = B(KCAP_CHOWN) | B(KCAP_KILL);
	c.cap_ambient = B(KCAP_CHOWN);
	ck_assert(!creds_exec(&c));
	ck_assert_uint_eq(c.cap_permitted, B(KCAP_CHOWN));
	ck_assert_uint_eq(c.cap_effective, B(KCAP_CHOWN));
	ck_assert_uint_eq(c.cap_ambient, B(KCAP_CHOWN));
}
END_TEST

/* euid 0 with a non-root real uid: privileged, so AT_SECURE; saved and fs
 * ids follow the effective ones. */
START_TEST(test_exec_euid_root)
{
	struct creds c;

	creds_init(&c, 0, 0);
	c.uid = 1000;
	c.suid = 5;
	c.fsuid = 7;
	c.gid = 1000;
	c.egid = c.sgid = c.fsgid = 0;
	ck_assert(creds_exec(&c));
	ck_assert_uint_eq(c.suid, 0);
	ck_assert_uint_eq(c.fsuid, 0);
	ck_assert_uint_eq(c.cap_effective, CAP_ALL_MASK);

	/* Real uid 0, effective not: permitted but not effective. */
	creds_init(&c, 0, 0);
	c.euid = c.fsuid = 1000;
	ck_assert(!creds_exec(&c));
	ck_assert_uint_eq(c.cap_permitted, CAP_ALL_MASK);
	ck_assert_uint_eq(c.cap_effective, 0);

	/* SECBIT_NOROOT: uid 0 means nothing. */
	creds_init(&c, 0, 0);
	c.securebits = SECBIT_NOROOT;
	ck_assert(!creds_exec(&c));
	ck_assert_uint_eq(c.cap_permitted, 0);
	ck_assert_uint_eq(c.cap_effective, 0);
}
END_TEST

START_TEST(test_no_setuid_fixup)
{
	struct creds c;

	creds_init(&c, 0, 0);
	c.securebits = SECBIT_NO_SETUID_FIXUP;
	ck_assert_int_eq(creds_setresuid(&c, 1, 1, 1), 0);
	ck_assert_uint_eq(c.cap_permitted, CAP_ALL_MASK);
	ck_assert_uint_eq(c.cap_effective, CAP_ALL_MASK);
	ck_assert_uint_eq(creds_setfsuid(&c, 0), 1);
	ck_assert_uint_eq(c.cap_effective, CAP_ALL_MASK);
}
END_TEST

/* The fs set follows fsuid; only what is permitted comes back. */
START_TEST(test_fsuid_caps)
{
	struct creds c;

	creds_init(&c, 0, 0);
	c.cap_permitted = c.cap_effective =
		B(KCAP_CHOWN) | B(KCAP_KILL) | B(KCAP_MAC_OVERRIDE) | B(KCAP_SETUID);
	ck_assert_uint_eq(creds_setfsuid(&c, 99), 0);
	ck_assert_uint_eq(c.cap_effective, B(KCAP_KILL) | B(KCAP_SETUID));
	c.cap_permitted &= ~B(KCAP_CHOWN);
	ck_assert_uint_eq(creds_setfsuid(&c, 0), 99);
	ck_assert_uint_eq(c.cap_effective, B(KCAP_KILL) | B(KCAP_SETUID) | B(KCAP_MAC_OVERRIDE));
	/* Without CAP_SETUID only one of the four uids may become fsuid. */
	c.cap_effective = 0;
	c.uid = c.euid = c.suid = 10;
	ck_assert_uint_eq(creds_setfsuid(&c, 11), 0);
	ck_assert_uint_eq(c.fsuid, 0); /* its own fsuid was still 0 */
	ck_assert_uint_eq(creds_setfsuid(&c, 10), 0);
	ck_assert_uint_eq(creds_setfsuid(&c, 11), 10);
	ck_assert_uint_eq(c.fsuid, 10);
}
END_TEST

START_TEST(test_groups_limit)
{
	static uint32_t g[CREDS_MAX_GROUPS + 1];
	struct creds c;

	creds_init(&c, 0, 0);
	for (unsigned i = 0; i <= CREDS_MAX_GROUPS; i++)
		g[i] = CREDS_MAX_GROUPS - i;
	ck_assert_int_eq(creds_setgroups(&c, g, CREDS_MAX_GROUPS + 1), -EINVAL);
	ck_assert_int_eq(creds_setgroups(&c, g, CREDS_MAX_GROUPS), 0);
	ck_assert_uint_eq(c.ngroups, CREDS_MAX_GROUPS);
	for (unsigned i = 1; i < CREDS_MAX_GROUPS; i++)
		ck_assert_uint_lt(c.groups[i - 1], c.groups[i]);
	ck_assert(creds_in_group(&c, 1));
	ck_assert(!creds_in_group(&c, 5000));
	c.cap_effective = 0;
	ck_assert_int_eq(creds_setgroups(&c, g, 1), -EPERM);
}
END_TEST

/* capset: ambient loses what leaves permitted or inheritable. */
START_TEST(test_capset_ambient)
{
	struct creds c;

	creds_init(&c, 1000, 1000);
	c.cap_permitted = c.cap_inheritable = c.cap_ambient = B(KCAP_CHOWN) | B(KCAP_KILL);
	ck_assert_int_eq(creds_capset(&c, 0, B(KCAP_CHOWN), c.cap_permitted), 0);
	ck_assert_uint_eq(c.cap_ambient, B(KCAP_CHOWN));
	ck_assert_int_eq(creds_capset(&c, 0, B(KCAP_CHOWN), B(KCAP_KILL)), 0);
	ck_assert_uint_eq(c.cap_ambient, 0);
	ck_assert_int_eq(creds_capset(&c, 0, 0, B(KCAP_CHOWN)), -EPERM);
}
END_TEST

START_TEST(test_sched_fork)
{
	struct task_sched p, c;

	memset(&p, 0, sizeof(p));
	p.policy = SCHED_FIFO;
	p.rt_priority = 50;
	p.nice = -5;
	p.reset_on_fork = true;
	p.timer_slack_ns = 1234;
	sched_fork(&c, &p);
	ck_assert_int_eq(c.policy, SCHED_OTHER);
	ck_assert_int_eq(c.rt_priority, 0);
	ck_assert_int_eq(c.nice, 0);
	ck_assert(!c.reset_on_fork);
	ck_assert_uint_eq(sched_timer_slack(&c), 1234);
	ck_assert_uint_eq(sched_timer_slack_default(&c), 1234);

	p.policy = SCHED_BATCH;
	p.rt_priority = 0;
	p.nice = 3;
	sched_fork(&c, &p);
	ck_assert_int_eq(c.policy, SCHED_BATCH);
	ck_assert_int_eq(c.nice, 3); /* only negative nice values are reset */

	p.reset_on_fork = false;
	p.nice = -5;
	sched_fork(&c, &p);
	ck_assert_int_eq(c.nice, -5);
	memset(&p, 0, sizeof(p));
	sched_fork(&c, &p);
	ck_assert_uint_eq(sched_timer_slack(&c), TIMER_SLACK_NS);
	ck_assert_uint_eq(sched_timer_slack_default(&c), TIMER_SLACK_NS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("creds");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_exec_root);
	tcase_add_test(tc, test_exec_user_ambient);
	tcase_add_test(tc, test_exec_euid_root);
	tcase_add_test(tc, test_no_setuid_fixup);
	tcase_add_test(tc, test_fsuid_caps);
	tcase_add_test(tc, test_groups_limit);
	tcase_add_test(tc, test_capset_ambient);
	tcase_add_test(tc, test_sched_fork);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
