#!/bin/sh
# The egress policy (docs/network.md) in every network mode of $MODES:
# connections to 169.254.169.254, 10.0.0.1 and a metadata host name are
# refused (ECONNREFUSED, a log line each), a datagram to the metadata
# address gets EACCES, a private address beyond the sandbox's subnet is
# refused by default and reachable once allowed, a deny rule holds even
# for the loopback; a neighbour on the sandbox's own subnet is reached by
# default and refused with local=deny, the subnet's gateway is refused;
# the IPv6 forms of the metadata address (mapped, compatible, SIIT, 6to4,
# Teredo, local-use NAT64) are refused, and the mapped and 6to4 forms of
# an allowed address pass the policy. In sandbox mode, a raw socket's own
# IPv4 header may not forge the source or name a denied destination.
#
# The test makes two network namespaces joined by a veth pair: C, where
# the sandbox runs (host mode: rung runs in C; sandbox and none: --netns
# C), 10.213.57.1/29 with its default route via S's 10.213.57.2; and S,
# with an echo server on port 8000 of 10.213.57.2 (the gateway), of
# 10.213.57.3 (a neighbour) and of 10.213.58.2 (beyond the subnet).
# Nothing listens outside them. C's loopback server (for host mode) runs
# only while host mode is tested: `--netns` in sandbox mode is refused for
# a namespace another process uses. A mode whose AF_INET sockets do not
# exist yet (the user-space stack not built) is skipped.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
MODES=${NET_EGRESS_MODES:-host sandbox none}
PER_MODE=24
PROG=$E2E_BIN/netconnect
nmodes=$(echo $MODES | wc -w)
plan $((nmodes * PER_MODE + 3))
[ -x "$PROG" ] || skip_all "no $PROG (make check builds it)"
[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
command -v ip >/dev/null || skip_all "no ip(8)"
BB=$(command -v busybox) || skip_all "no busybox (its nc serves)"

C=rung-egc-$$
S=rung-egs-$$
SERVER=10.213.58.2
GW=10.213.57.2
NEIGHBOUR=10.213.57.3
cleanup() {
	[ -n "${srv_pid:-}" ] && kill "$srv_pid" 2>/dev/null
	[ -n "${lo_pid:-}" ] && kill "$lo_pid" 2>/dev/null
	ip netns del "$C" 2>/dev/null
	ip netns del "$S" 2>/dev/null
	e2e_exit
}
trap cleanup EXIT
ip netns add "$C" && ip netns add "$S" || skip_all "cannot make network namespaces"
ip -n "$C" link add vc type veth peer name vs netns "$S" &&
	ip -n "$C" addr add 10.213.57.1/29 dev vc && ip -n "$S" addr add $GW/29 dev vs &&
	ip -n "$S" addr add $NEIGHBOUR/29 dev vs && ip -n "$S" addr add $SERVER/32 dev lo &&
	ip -n "$C" link set vc up && ip -n "$S" link set vs up &&
	ip -n "$C" link set lo up && ip -n "$S" link set lo up &&
	ip -n "$C" route add default via $GW ||
	skip_all "cannot make the veth pair"
ip netns exec "$S" "$BB" nc -ll -p 8000 -e /bin/cat &
srv_pid=$!
# lo_start, lo_stop: the echo server on C's loopback (port 8001).
lo_start() {
	[ -z "${lo_pid:-}" ] || return 0
	ip netns exec "$C" "$BB" nc -ll -p 8001 -e /bin/cat &
	lo_pid=$!
	i=0
	until ip netns exec "$C" "$PROG" tcp 127.0.0.1 8001 >/dev/null 2>&1 || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
lo_stop() {
	[ -n "${lo_pid:-}" ] || return 0
	kill "$lo_pid" 2>/dev/null
	wait "$lo_pid" 2>/dev/null
	lo_pid=
}
lo_start

# The guest's /etc/hosts names the metadata service and the server.
cat >"$E2E_TMP/hosts" <<HOSTS
127.0.0.1 localhost
169.254.169.254 metadata.google.internal
$SERVER allowed.test
HOSTS

i=0
until ip netns exec "$C" "$PROG" tcp $SERVER 8000 >/dev/null 2>&1 || [ $i -ge 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
out=$(ip netns exec "$C" "$PROG" tcp $SERVER 8000 2>&1)
check_eq "natively, C reaches the server in S" "connect: ok
reply: ping" "$out"
out=$(ip netns exec "$C" "$PROG" tcp 127.0.0.1 8001 2>&1)
check_eq "natively, C's loopback server answers" "connect: ok
reply: ping" "$out"

# guest MODE [RUNG DO OPTIONS...] -- ARGS...: netconnect ARGS in the
# sandbox; its output in $out, rung's log in $E2E_TMP/log.
guest() {
	m=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # $opts: words
	if [ "$m" = host ]; then
		out=$(ip netns exec "$C" timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --network host \
			-v "$E2E_TMP/hosts:/etc/hosts:ro" $opts "$PROG" "$@" 2>"$E2E_TMP/log")
	else
		# The user-space stack takes C's address over; the keeper gives
		# it back when the sandbox ends.
		out=$(rung do --network "$m" --netns "/run/netns/$C" \
			-v "$E2E_TMP/hosts:/etc/hosts:ro" $opts "$PROG" "$@" 2>"$E2E_TMP/log")
	fi
}

for m in $MODES; do
	if [ "$m" = host ]; then lo_start; else lo_stop; fi
	guest "$m" -- tcp 127.0.0.1 9
	case $out in
	"socket: EAFNOSUPPORT")
		for _ in $(seq $PER_MODE); do
			skip "--network=$m: no AF_INET sockets (the user-space stack is not built)"
		done
		continue
		;;
	esac
	guest "$m" -- tcp 169.254.169.254 80
	check_that "--network=$m: connect to 169.254.169.254 is refused, and logged ($out)" \
		'[ "$out" = "connect: ECONNREFUSED" ] && contains "$E2E_TMP/log" "egress: denied a connection to 169.254.169.254 port 80"'
	guest "$m" -- tcp 10.0.0.1 80
	check_eq "--network=$m: connect to 10.0.0.1 is refused" "connect: ECONNREFUSED" "$out"
	guest "$m" -- tcp metadata.google.internal 80
	check_eq "--network=$m: connect to metadata.google.internal is refused" \
		"connect: ECONNREFUSED" "$out"
	guest "$m" -- udp 169.254.169.254 53
	check_eq "--network=$m: a datagram to 169.254.169.254 gets EACCES" "sendto: EACCES" "$out"
	guest "$m" -- tcp allowed.test 8000
	check_eq "--network=$m: the server's private address is refused by default" \
		"connect: ECONNREFUSED" "$out"
	guest "$m" --egress default=deny -- tcp 1.1.1.1 80
	check_eq "--network=$m: --egress default=deny refuses a public address" \
		"connect: ECONNREFUSED" "$out"
	if [ "$m" = none ]; then
		skip "--network=none: no route to the server to allow"
	else
		guest "$m" --egress allow=$SERVER/32 -- tcp allowed.test 8000
		check_eq "--network=$m: --egress allow=$SERVER/32 reaches it" "connect: ok
reply: ping" "$out"
	fi
	if [ "$m" = host ]; then
		guest "$m" -- tcp 127.0.0.1 8001
		check_eq "--network=host: the loopback goes by default" "connect: ok
reply: ping" "$out"
	else
		skip "--network=$m: the loopback is the sandbox's own (no server there)"
	fi
	guest "$m" --egress deny=localhost -- tcp 127.0.0.1 8001
	check_eq "--network=$m: --egress deny=localhost refuses the loopback" \
		"connect: ECONNREFUSED" "$out"

	# The sandbox's own subnet, its gateway.
	if [ "$m" = none ]; then
		skip "--network=none: no subnet of its own"
	else
		guest "$m" --debug -- tcp $NEIGHBOUR 8000
		check_that "--network=$m: a neighbour on the sandbox's subnet is reached by default, and the log says so" \
			'[ "$out" = "connect: ok
reply: ping" ] && contains "$E2E_TMP/log" "the sandbox.s subnets are allowed: 10.213.57.0/29 \(not their gateways $GW"'
	fi
	guest "$m" --egress local=deny -- tcp $NEIGHBOUR 8000
	check_eq "--network=$m: --egress local=deny refuses the neighbour" "connect: ECONNREFUSED" "$out"
	guest "$m" --egress default=deny,allow=1.1.1.1 -- tcp $NEIGHBOUR 8000
	check_eq "--network=$m: an allow-list leaves the subnet out" "connect: ECONNREFUSED" "$out"
	guest "$m" -- tcp $GW 8000
	check_eq "--network=$m: the subnet's gateway is refused by default" "connect: ECONNREFUSED" "$out"

	# Every IPv6 form of the metadata address is refused and logged (as
	# inet_ntop spells it).
	for a in ::ffff:169.254.169.254 ::a9fe:a9fe ::ffff:0:a9fe:a9fe 2002:a9fe:a9fe::1 \
		2001:0:4136:e378:8000:63bf:5601:5601 64:ff9b:1::a9fe:a9fe; do
		guest "$m" -- tcp $a 80
		check_that "--network=$m: connect to $a is refused, and logged ($out)" \
			'[ "$out" = "connect: ECONNREFUSED" ] && contains "$E2E_TMP/log" "egress: denied a connection to [0-9a-f:.]+ port 80"'
	done
	# The forms of an allowed address pass the policy: the mapped one reaches
	# the server over IPv4; 6to4 has no route here (but is not refused).
	if [ "$m" = none ]; then
		skip "--network=none: no route to the server to allow"
	else
		guest "$m" --egress allow=$SERVER -- tcp ::ffff:$SERVER 8000
		check_eq "--network=$m: --egress allow=$SERVER reaches ::ffff:$SERVER" "connect: ok
reply: ping" "$out"
	fi
	if [ "$m" = none ]; then
		# (The loopback-only stack lets an IPv6 SYN without a route time
		# out instead of failing at once.)
		skip "--network=none: no route to tell a refusal from"
	else
		guest "$m" --egress allow=$SERVER -- tcp 2002:ad5:3a02::1 8000
		check_that "--network=$m: --egress allow=$SERVER lets 2002:ad5:3a02::1 past the policy ($out)" \
			'[ "$out" != "connect: ECONNREFUSED" ] && ! contains "$E2E_TMP/log" "egress: denied"'
	fi
	# IP_HDRINCL: the header's source must be the sandbox's, its destination
	# passes the policy as sendto's does (host: the sentry has no raw
	# sockets; none: no interface to leave by).
	if [ "$m" = sandbox ]; then
		guest "$m" -- rawhdr 10.213.57.6 $NEIGHBOUR $NEIGHBOUR
		check_eq "--network=$m: a raw packet with a forged source is EPERM" "sendto: EPERM" "$out"
		guest "$m" -- rawhdr 0.0.0.0 169.254.169.254 $NEIGHBOUR
		check_eq "--network=$m: a raw packet to 169.254.169.254 through the neighbour is EACCES" \
			"sendto: EACCES" "$out"
		guest "$m" -- rawhdr 10.213.57.1 $NEIGHBOUR $NEIGHBOUR
		check_eq "--network=$m: a raw packet of its own address to the neighbour goes" \
			"sendto: ok" "$out"
	else
		for _ in 1 2 3; do skip "--network=$m: no raw packets to an interface"; done
	fi
done
check_clean "the egress checks"
