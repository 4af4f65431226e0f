#!/bin/sh
# shellcheck disable=SC1010 # `do` is rung's subcommand
# --network=host as the guest's tools see it: in rung's own network
# namespace, `ip addr` and `ip route` (AF_NETLINK dumps served by the
# sentry) say what they say natively, a guest listener shows in
# /proc/net/tcp and netstat, and a guest server answers the host.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
plan 6
BB=$(command -v busybox) || {
	for _ in $(seq 6); do skip "no busybox"; done
	exit 0
}

if ! command -v ip >/dev/null; then
	skip "no ip(8)"
	skip "no ip(8)"
else
addrs='ip -o -4 addr | awk "{ print \$2, \$4 }"; ip -o -6 addr | awk "{ print \$2, \$4 }"'
want=$(sh -c "$addrs" 2>&1)
got=$(rung do --network host /bin/sh -c "$addrs" 2>&1)
check_eq "ip addr: the interfaces and addresses, as natively" "$want" "$got"
routes='ip -4 route | cut -d" " -f1-5'
want=$(sh -c "$routes" 2>&1)
got=$(rung do --network host /bin/sh -c "$routes" 2>&1)
check_eq "ip route: the IPv4 routes, as natively" "$want" "$got"
fi

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
check_clean "the host-mode checks"
