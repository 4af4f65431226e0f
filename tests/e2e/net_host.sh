#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# --network=host as the guest's tools see it: in rung's own network
# namespace, `ip addr` and `ip route` (AF_NETLINK dumps served by the
# sentry) say what they say natively, a guest listener shows in
# /proc/net/tcp and netstat, and a guest server answers the host. And the
# TCP and UDP guest tests with their IPv6 half (::1). rung's namespace is
# one of the test's own (netns_own: the host's is never used), with lo and
# a veth pair of IPv4 and IPv6 addresses and a default route.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
N=8
if ! netns_own "$@"; then
	plan $N
	for _ in $(seq $N); do skip "host mode runs in a network namespace of the test's own: needs root, ip(8), nsenter(1)"; done
	exit 0
fi
plan $N
BB=$(command -v busybox) || {
	for _ in $(seq $N); do skip "no busybox"; done
	exit 0
}
if ! { ip link add vh0 type veth peer name vh1 &&
	ip addr add 10.213.65.1/24 dev vh0 && ip addr add fd00:213:65::1/64 dev vh0 nodad &&
	ip link set vh0 addrgenmode none && ip link set vh1 addrgenmode none &&
	ip link set vh0 up && ip link set vh1 up && ip route add default via 10.213.65.2; }; then
	diag "could not set up the veth pair in $E2E_NETNS"
fi

addrs='ip -o -4 addr | awk "{ print \$2, \$4 }"; ip -o -6 addr | awk "{ print \$2, \$4 }"'
want=$(sh -c "$addrs" 2>&1)
got=$(rung do --network host /bin/sh -c "$addrs" 2>&1)
check_eq "ip addr: the interfaces and addresses, as natively" "$want" "$got"
routes='ip -4 route | cut -d" " -f1-5'
want=$(sh -c "$routes" 2>&1)
got=$(rung do --network host /bin/sh -c "$routes" 2>&1)
check_eq "ip route: the IPv4 routes, as natively" "$want" "$got"

# A guest HTTP server on the loopback, listed by the guest's netstat and
# reached by the host.
port=$((20000 + $$ % 20000))
mkdir -p "$E2E_TMP/www"
echo from-the-guest >"$E2E_TMP/www/index.html"
rung do --network host "$BB" sh -c "$BB httpd -f -p 127.0.0.1:$port -h $E2E_TMP/www & sleep 1;
	cat /proc/net/tcp; $BB netstat -tln; sleep 3; kill %1" >"$E2E_TMP/out" 2>&1 &
sleep 2
hex=$(printf '%04X' "$port")
check_that "/proc/net/tcp lists the guest's listener (127.0.0.1:$port, state 0A)" \
	'grep -Eq "0100007F:$hex 00000000:0000 0A" "$E2E_TMP/out"'
check_that "netstat -tln in the guest shows it" \
	'grep -Eq "127\.0\.0\.1:$port .*LISTEN" "$E2E_TMP/out"'
out=$(printf 'GET / HTTP/1.0\r\n\r\n' | timeout 5 "$BB" nc 127.0.0.1 "$port" 2>&1 | tail -n 1)
check_eq "the host reaches the guest's server" from-the-guest "$out"
wait

for t in net_tcp net_udp; do
	rung do --network host "$GUEST_BIN/$t-static" >"$E2E_TMP/$t.out" 2>"$E2E_TMP/$t.err"
	st=$?
	check_that "$t with IPv6 (::1 in the test's namespace): status $st" \
		'[ $st = 0 ] && ! contains "$E2E_TMP/$t.err" "no ::1" && contains "$E2E_TMP/$t.out" "^ok: IPv6"'
done
check_clean "the host-mode checks"
