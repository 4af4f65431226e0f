/* Unit tests: the egress policy's parser and matcher (sentry/net/egress.c). */
#include "config.h"
#include "sentry/net/egress.h"
#include "sentry/net/egress_own.h"
#include "sentry/net/iface.h"
#include "sentry/net/resolvconf.h"
#include "lib/error.h"
#include "lib/util.h"
#include "unit.h"

#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
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

static bool allowed_port(const struct egress_policy *p, const char *addr, unsigned port)
{
	uint8_t a[16] = {0};
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;

	ck_assert_int_eq(inet_pton(family, addr, a), 1);
	return egress_allowed(p, family, a, port);
}

static bool allowed(const struct egress_policy *p, const char *addr)
{
	return allowed_port(p, addr, 80);
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

/* Every IPv6 form of an IPv4 address is judged as that address: denied
 * where the IPv4 address is, allowed where a rule allows it. */
START_TEST(test_embedded_v4)
{
	/* Each form of 10.0.0.1 (RFC 1918) and of 169.254.169.254. */
	static const char *const forms[] = {
		"::ffff:10.0.0.1",	 /* IPv4-mapped */
		"::a00:1",		 /* IPv4-compatible */
		"::ffff:0:a00:1",	 /* SIIT, IPv4-translated */
		"64:ff9b::a00:1",	 /* NAT64 */
		"2002:a00:1::1",	 /* 6to4 */
		"2002:a00:1:ffff::1234", /* 6to4, another host behind it */
		"::ffff:169.254.169.254",
		"::a9fe:a9fe",
		"::ffff:0:a9fe:a9fe",
		"64:ff9b::a9fe:a9fe",
		"2002:a9fe:a9fe::1",
	};
	static const char *const public_forms[] = {
		"::ffff:8.8.8.8",   "::808:808",       "::ffff:0:808:808",
		"64:ff9b::808:808", "2002:808:808::1",
	};
	struct egress_policy *p = parse(NULL);

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++)
		ck_assert_msg(!allowed(p, forms[i]), "%s allowed", forms[i]);
	for (size_t i = 0; i < ARRAY_SIZE(public_forms); i++)
		ck_assert_msg(allowed(p, public_forms[i]), "%s denied", public_forms[i]);
	/* :: and ::1 are IPv6's own (the loopback goes), ::2 is 0.0.0.2. */
	ck_assert(allowed(p, "::1"));
	ck_assert(allowed(p, "::"));
	egress_free(p);

	p = parse("allow=10.0.0.1");
	for (size_t i = 0; i < 6; i++)
		ck_assert_msg(allowed(p, forms[i]), "%s denied with allow=10.0.0.1", forms[i]);
	ck_assert(!allowed(p, "::ffff:10.0.0.2"));
	ck_assert(!allowed(p, "2002:a00:2::1"));
	ck_assert(!allowed(p, "::ffff:169.254.169.254"));
	egress_free(p);

	/* A deny rule of the user's on the IPv4 address or on the IPv6 form. */
	p = parse("deny=8.8.8.8,deny=2002:808:404::/48");
	ck_assert(!allowed(p, "::ffff:8.8.8.8"));
	ck_assert(!allowed(p, "::808:808"));
	ck_assert(!allowed(p, "2002:808:808::1"));
	ck_assert(!allowed(p, "64:ff9b::808:808"));
	ck_assert(!allowed(p, "2002:808:404::1"));
	ck_assert(allowed(p, "::ffff:8.8.4.4"));
	egress_free(p);

	/* An allow-list: the IPv6 forms of an allowed address go, others not. */
	p = parse("default=deny,allow=192.0.2.1");
	ck_assert(allowed(p, "::ffff:192.0.2.1"));
	ck_assert(allowed(p, "2002:c000:201::1"));
	ck_assert(allowed(p, "64:ff9b::c000:201"));
	ck_assert(!allowed(p, "2002:808:808::1"));
	egress_free(p);
}
END_TEST

/* Teredo (2001::/32) carries its server's address and its client's,
 * inverted: both must be allowed. Local-use NAT64 (64:ff9b:1::/48) is
 * denied as a range (where its IPv4 address sits is the network's choice). */
START_TEST(test_teredo_nat64_local)
{
	struct egress_policy *p = parse(NULL);

	/* Server 65.54.227.120, client 192.0.2.45 (~ c000:22d = 3fff:fdd2). */
	ck_assert(allowed(p, "2001:0:4136:e378:8000:63bf:3fff:fdd2"));
	/* Client 10.0.0.1 (~ a00:1 = f5ff:fffe). */
	ck_assert(!allowed(p, "2001:0:4136:e378:8000:63bf:f5ff:fffe"));
	/* Client 169.254.169.254 (~ a9fe:a9fe = 5601:5601). */
	ck_assert(!allowed(p, "2001:0:4136:e378:8000:63bf:5601:5601"));
	/* Server 10.0.0.1, public client. */
	ck_assert(!allowed(p, "2001:0:a00:1:8000:63bf:3fff:fdd2"));
	/* Not Teredo: 2001:db8::/32 and 2001:4860::/32 are plain IPv6. */
	ck_assert(allowed(p, "2001:4860::f5ff:fffe"));
	ck_assert(!allowed(p, "64:ff9b:1::a00:1"));
	ck_assert(!allowed(p, "64:ff9b:1:ffff::808:808"));
	ck_assert(allowed(p, "64:ff9b:2::1"));
	egress_free(p);

	p = parse("allow=10.0.0.1,allow=64:ff9b:1::/48");
	ck_assert(allowed(p, "2001:0:4136:e378:8000:63bf:f5ff:fffe"));
	ck_assert(allowed(p, "2001:0:a00:1:8000:63bf:3fff:fdd2"));
	ck_assert(allowed(p, "64:ff9b:1::a00:1"));
	egress_free(p);
}
END_TEST

/* Rules with a port hold for that port only; with the same prefix, a rule
 * with a port beats one without. */
START_TEST(test_ports)
{
	struct egress_policy *p =
		parse("allow=10.1.0.5:5432,allow=[fd00::5]:53,deny=203.0.113.0/24:25,"
		      "allow=example.test:443,deny=198.51.100.7,allow=198.51.100.7:22,"
		      "allow=10.2.0.0/16:8080");

	ck_assert(allowed_port(p, "10.1.0.5", 5432));
	ck_assert(!allowed_port(p, "10.1.0.5", 5433));
	ck_assert(!allowed_port(p, "10.1.0.6", 5432));
	ck_assert(allowed_port(p, "fd00::5", 53));
	ck_assert(!allowed_port(p, "fd00::5", 80));
	ck_assert(!allowed_port(p, "203.0.113.9", 25));
	ck_assert(allowed_port(p, "203.0.113.9", 587));
	ck_assert(allowed_port(p, "198.51.100.7", 22));
	ck_assert(!allowed_port(p, "198.51.100.7", 80));
	ck_assert(allowed_port(p, "10.2.3.4", 8080));
	ck_assert(!allowed_port(p, "10.2.3.4", 80));
	ck_assert(allowed_port(p, "::ffff:10.1.0.5", 5432));
	ck_assert(!allowed_port(p, "::ffff:10.1.0.5", 22));
	egress_free(p);
	/* A host name with a port: its addresses on that port, nothing else
	 * (default=deny). */
	p = parse("default=deny,allow=example.test:443");
	ck_assert(allowed_port(p, "203.0.113.7", 443));
	ck_assert(allowed_port(p, "2001:db8::7", 443));
	ck_assert(!allowed_port(p, "203.0.113.7", 80));
	egress_free(p);
}
END_TEST

/* The origins: the user's rules, the nameservers, the guard, the
 * subnets, the built-in ranges, strongest first. */
START_TEST(test_origins)
{
	struct egress_policy *p = parse(NULL);
	struct egress_rule dns = {.allow = true,
				  .family = AF_INET,
				  .prefixlen = 32,
				  .port = 53,
				  .origin = EGRESS_DNS};
	struct egress_rule local = {
		.allow = true, .family = AF_INET, .prefixlen = 16, .origin = EGRESS_LOCAL};
	struct egress_rule gw = {
		.allow = false, .family = AF_INET, .prefixlen = 32, .origin = EGRESS_GUARD};

	ck_assert(p->dns && p->local && !p->default_deny);
	inet_pton(AF_INET, "169.254.169.254", dns.addr);
	egress_add(p, &dns);
	inet_pton(AF_INET, "169.254.0.0", local.addr);
	egress_add(p, &local);
	inet_pton(AF_INET, "10.255.255.53", dns.addr);
	egress_add(p, &dns);
	inet_pton(AF_INET, "10.255.0.0", local.addr);
	egress_add(p, &local);
	inet_pton(AF_INET, "10.255.0.1", gw.addr);
	egress_add(p, &gw);
	/* The nameservers on port 53 only. */
	ck_assert(allowed_port(p, "10.255.255.53", 53));
	ck_assert(allowed_port(p, "169.254.169.254", 53));
	ck_assert(!allowed_port(p, "169.254.169.254", 80));
	/* The subnet, but not the guarded addresses in it. */
	ck_assert(allowed_port(p, "10.255.255.53", 80));
	ck_assert(allowed_port(p, "10.255.1.2", 5432));
	ck_assert(!allowed_port(p, "10.255.0.1", 80));
	ck_assert(!allowed_port(p, "10.255.0.1", 53));
	ck_assert(!allowed_port(p, "169.254.170.2", 80));
	ck_assert(allowed_port(p, "169.254.1.1", 80));
	ck_assert(!allowed_port(p, "10.254.0.1", 80));
	egress_free(p);

	/* The user's rules beat them all. */
	p = parse("deny=10.255.255.53,allow=169.254.169.254:80");
	inet_pton(AF_INET, "10.255.255.53", dns.addr);
	egress_add(p, &dns);
	ck_assert(!allowed_port(p, "10.255.255.53", 53));
	ck_assert(allowed_port(p, "169.254.169.254", 80));
	egress_free(p);
}
END_TEST

/* dns=, local= and default= set the switches the sandbox's own rules
 * follow. */
START_TEST(test_switches)
{
	struct egress_policy *p = parse("local=deny");

	ck_assert(p->dns && !p->local && !p->default_deny);
	egress_free(p);
	p = parse("default=deny");
	ck_assert(p->dns && !p->local && p->default_deny);
	egress_free(p);
	p = parse("local=allow,default=deny,dns=deny");
	ck_assert(!p->dns && p->local && p->default_deny);
	egress_free(p);
}
END_TEST

static struct resolv_conf nameservers(void)
{
	struct resolv_conf rc = {.n = 3};

	rc.ns[0].family = AF_INET;
	inet_pton(AF_INET, "10.255.255.53", rc.ns[0].addr);
	rc.ns[1].family = AF_INET;
	inet_pton(AF_INET, "169.254.169.254", rc.ns[1].addr);
	rc.ns[2].family = AF_INET6;
	inet_pton(AF_INET6, "fd00:ec2::253", rc.ns[2].addr);
	return rc;
}

/* The nameservers of resolv.conf go on port 53 only, even the metadata
 * address (GCP's resolver); not at all with dns=deny; a deny rule of the
 * user's still holds. */
START_TEST(test_dns_rule)
{
	struct resolv_conf rc = nameservers();
	struct egress_policy *p = parse(NULL);

	egress_dns_rules(p, &rc);
	ck_assert(allowed_port(p, "10.255.255.53", 53));
	ck_assert(!allowed_port(p, "10.255.255.53", 80));
	ck_assert(!allowed_port(p, "10.255.255.54", 53));
	ck_assert(allowed_port(p, "169.254.169.254", 53));
	ck_assert(!allowed_port(p, "169.254.169.254", 80));
	ck_assert(allowed_port(p, "fd00:ec2::253", 53));
	ck_assert(!allowed_port(p, "fd00:ec2::253", 443));
	ck_assert(allowed_port(p, "::ffff:10.255.255.53", 53));
	ck_assert(!allowed_port(p, "::ffff:10.255.255.53", 22));
	egress_free(p);

	p = parse("dns=deny");
	egress_dns_rules(p, &rc);
	ck_assert(!allowed_port(p, "10.255.255.53", 53));
	egress_free(p);
	/* An allow-list keeps its DNS. */
	p = parse("default=deny,deny=169.254.169.254");
	egress_dns_rules(p, &rc);
	ck_assert(allowed_port(p, "10.255.255.53", 53));
	ck_assert(!allowed_port(p, "169.254.169.254", 53));
	egress_free(p);
}
END_TEST

/* A Docker network's namespace: lo, eth0 172.18.0.5/16 with a link-local
 * IPv6 address and a ULA one, a link-local IPv4 address on eth1, the
 * default route via 172.18.0.1. */
static void docker_config(struct net_config *c)
{
	struct net_iface *ifs = xzalloc(3 * sizeof(*ifs));
	struct net_route *rt = xzalloc(sizeof(*rt));

	net_config_loopback(c);
	ifs[0] = c->ifs[0];
	free(c->ifs);
	ifs[1].index = 2;
	ifs[1].naddrs = 3;
	ifs[1].addrs[0].family = AF_INET;
	inet_pton(AF_INET, "172.18.0.5", ifs[1].addrs[0].addr);
	ifs[1].addrs[0].prefixlen = 16;
	ifs[1].addrs[1].family = AF_INET6;
	inet_pton(AF_INET6, "fe80::42:acff:fe12:5", ifs[1].addrs[1].addr);
	ifs[1].addrs[1].prefixlen = 64;
	ifs[1].addrs[2].family = AF_INET6;
	inet_pton(AF_INET6, "fd00:db8:1::5", ifs[1].addrs[2].addr);
	ifs[1].addrs[2].prefixlen = 64;
	ifs[2].index = 3;
	ifs[2].naddrs = 1;
	ifs[2].addrs[0].family = AF_INET;
	inet_pton(AF_INET, "169.254.3.4", ifs[2].addrs[0].addr);
	ifs[2].addrs[0].prefixlen = 16;
	rt->family = AF_INET;
	rt->has_gw = true;
	inet_pton(AF_INET, "172.18.0.1", rt->gw);
	rt->ifindex = 2;
	c->ifs = ifs;
	c->nifs = 3;
	c->routes = rt;
	c->nroutes = 1;
}

/* The sandbox's subnets go (not their gateway, nor link-local ranges, nor
 * the metadata addresses); local=deny, default=deny and the host's own
 * namespace keep them denied; the user's rules still decide first. */
START_TEST(test_local_rule)
{
	struct net_config c;
	struct egress_policy *p = parse(NULL);

	docker_config(&c);
	egress_local_rules(p, &c, false);
	ck_assert(allowed_port(p, "172.18.0.6", 5432));
	ck_assert(allowed_port(p, "172.18.255.254", 80));
	ck_assert(allowed_port(p, "::ffff:172.18.0.6", 80));
	ck_assert(allowed_port(p, "fd00:db8:1::6", 80));
	ck_assert(!allowed_port(p, "fd00:db8:2::6", 80));
	ck_assert(!allowed_port(p, "172.18.0.1", 80));
	ck_assert(!allowed_port(p, "172.18.0.1", 53));
	ck_assert(!allowed_port(p, "172.19.0.6", 80));
	ck_assert(!allowed_port(p, "169.254.3.5", 80));
	ck_assert(!allowed_port(p, "fe80::42:acff:fe12:6", 80));
	egress_free(p);

	/* A subnet that holds a metadata address still does not reach it. */
	c.ifs[1].addrs[0].addr[0] = 100;
	c.ifs[1].addrs[0].addr[1] = 100;
	c.ifs[1].addrs[0].prefixlen = 10;
	p = parse(NULL);
	egress_local_rules(p, &c, false);
	ck_assert(allowed_port(p, "100.100.0.7", 80));
	ck_assert(!allowed_port(p, "100.100.100.200", 80));
	egress_free(p);

	static const char *const strict[] = {"local=deny", "default=deny", "deny=100.64.0.0/10"};
	for (size_t i = 0; i < ARRAY_SIZE(strict); i++) {
		p = parse(strict[i]);
		egress_local_rules(p, &c, false);
		ck_assert_msg(!allowed_port(p, "100.100.0.7", 80), "%s: the subnet allowed",
			      strict[i]);
		egress_free(p);
	}
	p = parse("default=deny,local=allow");
	egress_local_rules(p, &c, false);
	ck_assert(allowed_port(p, "100.100.0.7", 80));
	ck_assert(!allowed_port(p, "8.8.8.8", 80));
	egress_free(p);
	p = parse(NULL);
	egress_local_rules(p, &c, true);
	ck_assert(!allowed_port(p, "100.100.0.7", 80));
	egress_free(p);
	/* The gateway's nameserver on port 53 beats the guard. */
	{
		struct resolv_conf rc = {.n = 1};

		rc.ns[0].family = AF_INET;
		inet_pton(AF_INET, "172.18.0.1", rc.ns[0].addr);
		p = parse(NULL);
		egress_local_rules(p, &c, false);
		egress_dns_rules(p, &rc);
		ck_assert(allowed_port(p, "172.18.0.1", 53));
		ck_assert(!allowed_port(p, "172.18.0.1", 80));
		egress_free(p);
	}
	net_config_free(&c);
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
		"local=maybe",
		"dns=",
		"default",
		"allow=1.2.3.4:0",
		"allow=1.2.3.4:65536",
		"allow=1.2.3.4:",
		"allow=1.2.3.4:53x",
		"allow=[::1]x",
		"allow=[::1",
		"allow=[example.test]:53",
		"allow=fd00::1:53:",
		"allow=::1]:53",
		"allow=example.test:-1",
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
 * the family (which fails them); the port is the sockaddr's. */
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
	p = parse("allow=[fe80::1]:53");
	ck_assert_int_eq(egress_check(p, &in6, sizeof(in6), "test"), -1);
	in6.sin6_port = htons(53);
	ck_assert_int_eq(egress_check(p, &in6, sizeof(in6), "test"), 0);
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
	tcase_add_test(tc, test_embedded_v4);
	tcase_add_test(tc, test_teredo_nat64_local);
	tcase_add_test(tc, test_ports);
	tcase_add_test(tc, test_origins);
	tcase_add_test(tc, test_switches);
	tcase_add_test(tc, test_dns_rule);
	tcase_add_test(tc, test_local_rule);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_check_sockaddr);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
