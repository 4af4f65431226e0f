#!/bin/sh
# Name resolution where the resolver lives in a private range, as on cloud
# machines (docs/network.md, the egress policy's DNS rule), in every
# network mode of $MODES: under the default policy the guest resolves a
# name through the nameserver of its resolv.conf, over UDP and over TCP
# (options use-vc), and reaches the address it got; the resolver's address
# is still refused on any other port (TCP and UDP); rung's log names the
# nameserver once; with --egress dns=deny the lookup fails. A hostile
# rootfs (its resolv.conf a symlink to a host path, a fifo, a device) is
# read in the guest's own tree: no host file opens a hole, nothing hangs.
# A nameserver on the namespace's loopback (127.0.0.11, where Docker's
# embedded DNS lives) answers too, over UDP and TCP: in sandbox mode
# through the sentry's relay (the stack's loopback is its own).
#
# The test makes two network namespaces joined by a veth pair: C, where
# the sandbox runs (host mode: rung runs in C; sandbox: --netns C), its
# default route via S; and S, with a DNS responder of the test's own on
# 10.213.62.53 (outside C's subnet: only the DNS rule lets port 53
# through) and echo servers on 10.213.62.53:8000 and on the name's
# address, 198.51.100.80:8000 (a public range for the policy).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
MODES=${NET_DNS_MODES:-host sandbox}
PER_MODE=11
HOSTILE=4
nmodes=$(echo $MODES | wc -w)
PLAN=$((nmodes * PER_MODE + HOSTILE + 2))
plan $PLAN
PROG=$E2E_BIN/netconnect
DNSD=$E2E_BIN/dnsserve
[ -x "$PROG" ] && [ -x "$DNSD" ] || skip_all "no $PROG or $DNSD (make check builds them)"
[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
command -v ip >/dev/null || skip_all "no ip(8)"
command -v getent >/dev/null || skip_all "no getent"
BB=$(command -v busybox) || skip_all "no busybox (its nc serves)"

C=rung-dnsc-$$
S=rung-dnss-$$
RESOLVER=10.213.62.53
SITE=198.51.100.80
NAME=mirror.rung.test
cleanup() {
	for p in ${pids:-}; do kill "$p" 2>/dev/null; done
	ip netns del "$C" 2>/dev/null
	ip netns del "$S" 2>/dev/null
	rm -rf "$E2E_TMP"
}
trap cleanup EXIT
ip netns add "$C" && ip netns add "$S" || skip_all "cannot make network namespaces"
ip -n "$C" link add vc type veth peer name vs netns "$S" &&
	ip -n "$C" addr add 10.213.61.1/30 dev vc && ip -n "$S" addr add 10.213.61.2/30 dev vs &&
	ip -n "$C" link set vc up && ip -n "$S" link set vs up &&
	ip -n "$C" link set lo up && ip -n "$S" link set lo up &&
	ip -n "$S" addr add $RESOLVER/32 dev lo && ip -n "$S" addr add $SITE/32 dev lo &&
	ip -n "$C" route add default via 10.213.61.2 ||
	skip_all "cannot make the veth pair"
: >"$E2E_TMP/dns.log"
ip netns exec "$S" "$DNSD" $RESOLVER 53 "$E2E_TMP/dns.log" $NAME=$SITE &
pids=$!
ip netns exec "$S" "$BB" nc -ll -p 8000 -e /bin/cat &
pids="$pids $!"

# A resolver on C's own loopback, as dockerd's embedded DNS: its sockets
# are there, the process is not (so that C is a namespace only the sandbox
# uses, which sandbox mode wants of --netns).
DNSSERVE_NETNS=/proc/$$/ns/net ip netns exec "$C" "$DNSD" 127.0.0.11 53 "$E2E_TMP/dns.log" loop.rung.test=$SITE &
pids="$pids $!"

# The guest's resolv.conf: the private resolver; one try, one second.
printf 'nameserver %s\noptions timeout:1 attempts:1\n' $RESOLVER >"$E2E_TMP/resolv.conf"
printf 'nameserver %s\noptions use-vc timeout:1 attempts:1\n' $RESOLVER >"$E2E_TMP/resolv-tcp.conf"
printf 'nameserver 127.0.0.11\noptions timeout:1 attempts:1\n' >"$E2E_TMP/resolv-lo.conf"
printf 'nameserver 127.0.0.11\noptions use-vc timeout:1 attempts:1\n' >"$E2E_TMP/resolv-lo-tcp.conf"

i=0
until ip netns exec "$C" "$PROG" tcp $SITE 8000 >/dev/null 2>&1 || [ $i -ge 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
out=$(ip netns exec "$C" unshare -m sh -c \
	"mount --bind $E2E_TMP/resolv.conf /etc/resolv.conf && getent hosts $NAME" 2>&1)
check_that "natively, C resolves $NAME through $RESOLVER ($out)" \
	'echo "$out" | grep -q "^$SITE "'

# guest MODE [RUNG DO OPTIONS...] -- PROGRAM ARGS...: in the sandbox with
# the resolv.conf $conf (default: UDP), on the host's root; its output in
# $out, rung's log in $E2E_TMP/log.
guest() {
	m=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	rc=${conf:-$E2E_TMP/resolv.conf}
	: >"$E2E_TMP/log"
	# shellcheck disable=SC2086 # $opts: words
	if [ "$m" = host ]; then
		out=$(ip netns exec "$C" timeout -k 5 "$E2E_TIMEOUT" "$RUNG" --log "$E2E_TMP/log" \
			do --network host -v "$rc:/etc/resolv.conf:ro" $opts "$@" 2>&1)
	else
		# The user-space stack takes C's address over (and the host's
		# copy stays removed): put it back for each run.
		ip -n "$C" addr add 10.213.61.1/30 dev vc 2>/dev/null
		ip -n "$C" route add default via 10.213.61.2 2>/dev/null
		out=$(rung --log "$E2E_TMP/log" do --network "$m" --netns "/run/netns/$C" \
			-v "$rc:/etc/resolv.conf:ro" $opts "$@" 2>&1)
	fi
}

for m in $MODES; do
	guest "$m" -- getent hosts $NAME
	check_that "--network=$m: getent resolves $NAME through the private resolver ($out)" \
		'echo "$out" | grep -q "^$SITE .*$NAME"'
	check_that "--network=$m: rung's log names the nameserver allowed on port 53, once" \
		'[ "$(grep -c "nameservers of /etc/resolv.conf are allowed on port 53.*: $RESOLVER$" "$E2E_TMP/log")" = 1 ]'
	guest "$m" -- "$PROG" tcp $NAME 8000
	check_eq "--network=$m: a name looked up, then its address reached (as apt-get does)" \
		"connect: ok
reply: ping" "$out"
	: >"$E2E_TMP/dns.log"
	conf=$E2E_TMP/resolv-tcp.conf guest "$m" -- getent hosts $NAME
	check_that "--network=$m: over TCP too (options use-vc; the resolver saw TCP: $(tr '\n' ' ' <"$E2E_TMP/dns.log"))" \
		'echo "$out" | grep -q "^$SITE " && grep -q "^tcp A $NAME" "$E2E_TMP/dns.log" && ! grep -q "^udp" "$E2E_TMP/dns.log"'
	guest "$m" -- "$PROG" tcp $RESOLVER 8000
	check_that "--network=$m: the resolver's address on another TCP port is refused ($out)" \
		'[ "$out" = "connect: ECONNREFUSED" ] && contains "$E2E_TMP/log" "egress: denied a connection to $RESOLVER port 8000"'
	guest "$m" -- "$PROG" udp $RESOLVER 5353
	check_eq "--network=$m: and on another UDP port" "sendto: EACCES" "$out"
	guest "$m" -- "$PROG" tcp 10.213.61.2 8000
	check_eq "--network=$m: the gateway of the sandbox's subnet is refused" \
		"connect: ECONNREFUSED" "$out"
	guest "$m" --egress dns=deny -- getent hosts $NAME
	check_that "--network=$m: --egress dns=deny: the lookup fails ($out)" \
		'[ -z "$out" ] || ! echo "$out" | grep -q "^$SITE "'
	: >"$E2E_TMP/dns.log"
	conf=$E2E_TMP/resolv-lo.conf guest "$m" -- getent hosts loop.rung.test
	check_that "--network=$m: a nameserver on the namespace's loopback (127.0.0.11) answers ($out)" \
		'echo "$out" | grep -q "^$SITE .*loop.rung.test" && grep -q "^udp A loop.rung.test" "$E2E_TMP/dns.log" &&
		{ [ "$m" != sandbox ] || contains "$E2E_TMP/log" "DNS to 127.0.0.11 .* is relayed"; }'
	: >"$E2E_TMP/dns.log"
	conf=$E2E_TMP/resolv-lo-tcp.conf guest "$m" -- getent hosts loop.rung.test
	# (The relay passes a message that came over TCP on as a datagram.)
	[ "$m" = sandbox ] && via=udp || via=tcp
	check_that "--network=$m: and over TCP ($out; the resolver saw $via)" \
		'echo "$out" | grep -q "^$SITE " && grep -q "^$via A loop.rung.test" "$E2E_TMP/dns.log"'
	guest "$m" --egress deny=$RESOLVER -- getent hosts $NAME
	check_that "--network=$m: a deny rule of the user's beats the DNS rule ($out)" \
		'! echo "$out" | grep -q "^$SITE " && contains "$E2E_TMP/log" "denied a (connection|datagram) to $RESOLVER port 53"'
done

# A hostile rootfs: /etc/resolv.conf is a symlink to a host file that
# names the resolver (the guest's tree has no such file), a fifo, a
# device. The sandbox starts at once, and no nameserver is allowed.
m=${MODES%% *}
R=$E2E_TMP/root
mkdir -p "$R/etc" "$R/dev" "$R/proc" "$R/sys" "$R/tmp"
cp "$PROG" "$R/netconnect"
printf 'nameserver %s\n' $RESOLVER >"$E2E_TMP/host-resolv.conf"
hostile() {
	rm -f "$R/etc/resolv.conf"
	"$@"
	: >"$E2E_TMP/log"
	if [ "$m" = host ]; then
		out=$(ip netns exec "$C" timeout -k 5 20 "$RUNG" --log "$E2E_TMP/log" do \
			--network host --rootfs "$R" /netconnect udp $RESOLVER 53 2>&1)
	else
		ip -n "$C" addr add 10.213.61.1/30 dev vc 2>/dev/null
		ip -n "$C" route add default via 10.213.61.2 2>/dev/null
		out=$(timeout -k 5 20 "$RUNG" --log "$E2E_TMP/log" do --network "$m" \
			--netns "/run/netns/$C" --rootfs "$R" /netconnect udp $RESOLVER 53 2>&1)
	fi
}
hostile ln -s "$E2E_TMP/host-resolv.conf" "$R/etc/resolv.conf"
check_that "--network=$m: resolv.conf a symlink to a host file: not read, port 53 refused ($out)" \
	'[ "$out" = "sendto: EACCES" ] && ! contains "$E2E_TMP/log" "nameservers of"'
hostile mkfifo "$R/etc/resolv.conf"
check_eq "--network=$m: resolv.conf a fifo: the sandbox starts, port 53 refused" \
	"sendto: EACCES" "$out"
hostile ln -s /dev/zero "$R/etc/resolv.conf"
check_eq "--network=$m: resolv.conf a link to /dev/zero: the same" "sendto: EACCES" "$out"
hostile ln -s /proc/net/udp "$R/etc/resolv.conf"
check_eq "--network=$m: resolv.conf a link into /proc: the same" "sendto: EACCES" "$out"

check_clean "the DNS checks"
