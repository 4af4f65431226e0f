/* Unit tests: the nameservers of a guest's resolv.conf (sentry/net/resolvconf.c). */
#include "config.h"
#include "sentry/net/resolvconf.h"
#include "lib/util.h"
#include "unit.h"

#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static struct resolv_conf parse(const char *text)
{
	struct resolv_conf rc;

	resolv_conf_parse(text, strlen(text), &rc);
	return rc;
}

static void ck_ns(const struct resolv_conf *rc, int i, const char *want)
{
	char text[INET6_ADDRSTRLEN] = "";

	ck_assert_int_gt(rc->n, i);
	inet_ntop(rc->ns[i].family, rc->ns[i].addr, text, sizeof(text));
	ck_assert_str_eq(text, want);
}

/* What glibc reads: the keyword at the start of a line, blanks, an address. */
START_TEST(test_nameservers)
{
	struct resolv_conf rc = parse("# a comment\n"
				      "search example.test\n"
				      "nameserver 10.255.255.53\n"
				      "nameserver\tfd00::53%eth0 trailing words\n"
				      "options ndots:0 edns0\n");

	ck_assert_int_eq(rc.n, 2);
	ck_ns(&rc, 0, "10.255.255.53");
	ck_assert_int_eq(rc.ns[0].family, AF_INET);
	ck_ns(&rc, 1, "fd00::53");
	ck_assert_int_eq(rc.ns[1].family, AF_INET6);
	/* CRLF lines, no newline at the end. */
	rc = parse("nameserver 127.0.0.11\r\nnameserver 1.1.1.1");
	ck_assert_int_eq(rc.n, 2);
	ck_ns(&rc, 0, "127.0.0.11");
	ck_ns(&rc, 1, "1.1.1.1");
}
END_TEST

/* Only the first three count, as for the resolvers; lines that are not
 * a nameserver's, or whose address is bad, do not. */
START_TEST(test_limits_and_junk)
{
	struct resolv_conf rc = parse("nameserver 192.0.2.1\n"
				      " nameserver 192.0.2.99\n"
				      "#nameserver 192.0.2.98\n"
				      "nameservers 192.0.2.97\n"
				      "nameserver192.0.2.96\n"
				      "nameserver 192.0.2\n"
				      "nameserver 0.0.0.0\n"
				      "nameserver ::\n"
				      "nameserver\n"
				      "nameserver \n"
				      "nameserver 999.0.0.1\n"
				      "nameserver 192.0.2.2\n"
				      "nameserver 192.0.2.3\n"
				      "nameserver 192.0.2.4\n");

	ck_assert_int_eq(rc.n, 3);
	ck_ns(&rc, 0, "192.0.2.1");
	ck_ns(&rc, 1, "192.0.2.2");
	ck_ns(&rc, 2, "192.0.2.3");
	rc = parse("");
	ck_assert_int_eq(rc.n, 0);
}
END_TEST

/* Hostile content: NULs, a long line, an address that runs to the end of
 * the buffer (not NUL-terminated), binary noise. */
START_TEST(test_hostile)
{
	static const char nul[] = "nameserver 10.0.0.1\0\nnameserver 10.0.0.2\n";
	char *big = xmalloc(RESOLV_CONF_MAX);
	struct resolv_conf rc;

	/* A NUL ends the address, as it ends glibc's line. */
	resolv_conf_parse(nul, sizeof(nul) - 1, &rc);
	ck_assert_int_eq(rc.n, 2);
	ck_ns(&rc, 0, "10.0.0.1");
	ck_ns(&rc, 1, "10.0.0.2");
	memset(big, 'x', RESOLV_CONF_MAX);
	resolv_conf_parse(big, RESOLV_CONF_MAX, &rc);
	ck_assert_int_eq(rc.n, 0);
	/* The address is the last bytes of the buffer. */
	memcpy(big + RESOLV_CONF_MAX - 21, "\nnameserver 10.0.0.3", 20);
	big[RESOLV_CONF_MAX - 1] = '9';
	resolv_conf_parse(big, RESOLV_CONF_MAX, &rc);
	ck_assert_int_eq(rc.n, 1);
	ck_ns(&rc, 0, "10.0.0.39");
	/* An address longer than any (not taken, not overrun). */
	memcpy(big, "nameserver ", 11);
	memset(big + 11, '1', 200);
	big[211] = '\n';
	resolv_conf_parse(big, 212, &rc);
	ck_assert_int_eq(rc.n, 0);
	for (size_t i = 0; i < RESOLV_CONF_MAX; i++)
		big[i] = (char)(i * 7919 % 251);
	resolv_conf_parse(big, RESOLV_CONF_MAX, &rc);
	ck_assert_int_le(rc.n, RESOLV_MAXNS);
	free(big);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("resolvconf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_nameservers);
	tcase_add_test(tc, test_limits_and_junk);
	tcase_add_test(tc, test_hostile);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
