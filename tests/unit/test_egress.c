/* Unit tests: the egress policy's parser and matcher (sentry/net/egress.c). */
#include "config.h"
#include "sentry/net/egress.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <arpa/inet.h>
#include <check.h>
#include <string.h>
#include <sys/socket.h>

/* "example.test" has one IPv4 and one IPv6 address; nothing else resolves. */
static int fake_resolve(const char *host, uint8_t (*addrs)[16], int *families, int max)
{
	if (strcmp(host, "example.test") != 0 || max < 2)
		return -2; /* ENOENT */
	memset(addrs, 0, 32);
	inet_pton(AF_INET, "203.0.113.7", addrs[0]);
	families[0] = AF_INET;
	inet_pton(AF_INET6, "2001:db8::7", addrs[1]);
	families[1] = AF_INET6;
	return 2;
}

static struct egress_policy *parse(const char *spec)
{
	struct rung_error err = {0};
	struct egress_policy *p = NULL;

	ck_assert_msg(egress_parse(spec, fake_resolve, &p, &err) == 0, "`%s` refused: %s", spec,
		      err.msg ? err.msg : "?");
	return p;
}

static bool allowed(const struct egress_policy *p, const char *addr)
{
	uint8_t a[16] = {0};
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	ck_assert_int_eq(inet_pton(family, addr, a), 1);
	return egress_allowed(p, family, a);
}

/* The default policy: private, shared, link-local and ULA ranges denied,
 * the loopback and public addresses allowed, mapped forms seen through. */
START_TEST(test_default)
{
	struct egress_policy *p = parse(NULL);
	static const char *const denied[] = {
		"169.254.169.254",
		"10.0.0.1",
		"10.255.255.255",
		"172.16.0.1",
		"172.31.255.254",
		"192.168.1.1",
		"100.64.0.1",
		"100.127.255.255",
		"fd00::1",
		"fd00:ec2::254",
		"fc00::1",
		"fe80::1",
		"::ffff:169.254.169.254",
		"::ffff:10.0.0.1",
		"64:ff9b::a9fe:a9fe",
	};
	static const char *const ok[] = {"127.0.0.1",	    "127.1.2.3",      "::1",
					 "8.8.8.8",	    "172.15.255.255", "172.32.0.0",
					 "100.63.255.255",  "100.128.0.0",    "192.169.0.1",
					 "2001:4860::8888", "::ffff:8.8.8.8", "fe00::1",
					 "::ffff:127.0.0.1"};

	for (size_t i = 0; i < ARRAY_SIZE(denied); i++)
		ck_assert_msg(!allowed(p, denied[i]), "%s allowed", denied[i]);
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		ck_assert_msg(allowed(p, ok[i]), "%s denied", ok[i]);
	egress_free(p);
}
END_TEST

/* allow= opens a hole in a default range; deny= closes more; the longest
 * prefix among the rules decides, deny winning a tie. */
START_TEST(test_rules)
{
	struct egress_policy *p =
		parse(" allow=10.1.0.0/16 , deny=10.1.2.0/24,deny=8.8.8.8, allow=fd00::/8");

	ck_assert(allowed(p, "10.1.0.1"));
	ck_assert(!allowed(p, "10.1.2.3"));
	ck_assert(!allowed(p, "10.2.0.1"));
	ck_assert(!allowed(p, "8.8.8.8"));
	ck_assert(allowed(p, "8.8.4.4"));
	ck_assert(allowed(p, "fd12::1"));
	ck_assert(!allowed(p, "fe80::1"));
	ck_assert(!allowed(p, "169.254.169.254"));
	egress_free(p);
	p = parse("allow=1.2.3.4,deny=1.2.3.4");
	ck_assert(!allowed(p, "1.2.3.4"));
	egress_free(p);
	/* The loopback too, when a rule names it. */
	p = parse("deny=127.0.0.1,deny=::1");
	ck_assert(!allowed(p, "127.0.0.1"));
	ck_assert(!allowed(p, "::1"));
	ck_assert(allowed(p, "127.0.0.2"));
	egress_free(p);
}
END_TEST

/* default=deny: an allow-list; the loopback still goes. */
START_TEST(test_default_deny)
{
	struct egress_policy *p = parse("default=deny,allow=192.0.2.0/24,allow=example.test");

	ck_assert(allowed(p, "192.0.2.55"));
	ck_assert(allowed(p, "203.0.113.7"));
	ck_assert(allowed(p, "2001:db8::7"));
	ck_assert(!allowed(p, "203.0.113.8"));
	ck_assert(!allowed(p, "8.8.8.8"));
	ck_assert(!allowed(p, "2001:db8::8"));
	ck_assert(allowed(p, "127.0.0.1"));
	ck_assert(allowed(p, "::1"));
	egress_free(p);
}
END_TEST

/* Host names become their addresses. */
START_TEST(test_hostname)
{
	struct egress_policy *p = parse("deny=example.test");

	ck_assert(!allowed(p, "203.0.113.7"));
	ck_assert(!allowed(p, "2001:db8::7"));
	ck_assert(allowed(p, "203.0.113.8"));
	egress_free(p);
}
END_TEST

/* Malformed rules are refused with a message naming them. */
START_TEST(test_invalid)
{
	static const char *const bad[] = {
		"allow",
		"permit=1.2.3.4",
		"allow=1.2.3.4/33",
		"allow=::1/129",
		"allow=1.2.3.4/",
		"allow=1.2.3.4/-1",
		"allow=1.2.3.4/8x",
		"deny=bad host",
		"deny=nowhere.test",
		"allow=1.2.3",
		"default=maybe",
		"deny=-x.test",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct rung_error err = {0};
		struct egress_policy *p = NULL;
		ck_assert_msg(egress_parse(bad[i], fake_resolve, &p, &err) < 0, "`%s` accepted",
			      bad[i]);
		ck_assert(err.msg != NULL);
		ck_assert(p == NULL);
		rung_error_release(&err);
	}
}
END_TEST

/* egress_check reads guest sockaddrs: too short or other families pass to
 * the family (which fails them), the ports do not matter. */
START_TEST(test_check_sockaddr)
{
	struct egress_policy *p = parse(NULL);
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(80)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons(80)};
	struct sockaddr_un_short {
		sa_family_t f;
		char path[8];
	} un = {AF_UNIX, "x"};

	inet_pton(AF_INET, "169.254.169.254", &in.sin_addr);
	ck_assert_int_eq(egress_check(p, &in, sizeof(in), "test"), -1);
	ck_assert_int_eq(egress_check(p, &in, 8, "test"), 0);
	inet_pton(AF_INET, "1.1.1.1", &in.sin_addr);
	ck_assert_int_eq(egress_check(p, &in, sizeof(in), "test"), 0);
	inet_pton(AF_INET6, "fe80::1", &in6.sin6_addr);
	ck_assert_int_eq(egress_check(p, &in6, sizeof(in6), "test"), -1);
	ck_assert_int_eq(egress_check(p, &un, sizeof(un), "test"), 0);
	ck_assert_int_eq(egress_check(p, &un, 1, "test"), 0);
	egress_free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("egress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_default);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_default_deny);
	tcase_add_test(tc, test_hostname);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_check_sockaddr);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
