#!/bin/sh
# The user-space stack on a real interface (--network=sandbox): two
# network namespaces joined by a veth pair, C (10.213.59.1, where the
# sandbox runs with --netns) and S (10.213.59.2, native programs). TCP
# (1 MiB, checksummed) and UDP both ways: a guest client to a server in
# S, and a client in S to a guest server. lwIP answers for C's address;
# the host kernel's copy is removed while the sandbox runs, and the
# keeper gives it back after each run (netns.sh tests that).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
N=9
PROG=$E2E_BIN/nstackpeer
plan $N
[ -x "$PROG" ] || skip_all "no $PROG (make check builds it)"
[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
command -v ip >/dev/null || skip_all "no ip(8)"

C=rung-nsc-$$
S=rung-nss-$$
GUEST=10.213.59.1
PEER=10.213.59.2
cleanup() {
	[ -n "${bg:-}" ] && kill "$bg" 2>/dev/null
	ip netns del "$C" 2>/dev/null
	ip netns del "$S" 2>/dev/null
	e2e_exit
}
trap cleanup EXIT
ip netns add "$C" && ip netns add "$S" || skip_all "cannot make network namespaces"
ip -n "$C" link add vc type veth peer name vs netns "$S" &&
	ip -n "$C" addr add $GUEST/24 dev vc && ip -n "$S" addr add $PEER/24 dev vs &&
	ip -n "$C" link set vc up && ip -n "$S" link set vs up &&
	ip -n "$C" link set lo up && ip -n "$S" link set lo up ||
	skip_all "cannot make the veth pair"

# guest ARGS...: nstackpeer ARGS in a sandbox in C; output in
# $E2E_TMP/guest.out, rung's messages in guest.err.
guest() {
	rung do --network sandbox --netns "/run/netns/$C" --egress allow=$PEER/32 \
		"$PROG" "$@" >"$E2E_TMP/guest.out" 2>"$E2E_TMP/guest.err"
}

# A guest TCP client sends 1 MiB to a server in S.
ip netns exec "$S" "$PROG" serve tcp 7001 >"$E2E_TMP/peer.out" 2>&1 &
bg=$!
guest send tcp $PEER 7001 1048576
check_eq "a guest TCP client sends 1 MiB to a server outside" "connect: ok
answer: the same bytes" "$(cat "$E2E_TMP/guest.out")"
wait "$bg"
bg=
check_eq "... which saw all of it" "listening
served 1048576 bytes" "$(cat "$E2E_TMP/peer.out")"
check_that "the sandbox gave C's interface its address back when it ended" \
	'ip -n "$C" addr show dev vc | grep -q "inet $GUEST/"'

# A guest UDP client and a server in S.
ip netns exec "$S" "$PROG" serve udp 7002 >"$E2E_TMP/peer.out" 2>&1 &
bg=$!
guest send udp $PEER 7002
check_eq "a guest UDP client gets its datagram back reversed" "answer: margatad" \
	"$(cat "$E2E_TMP/guest.out")"
wait "$bg"
bg=

# A client in S sends 1 MiB to a guest TCP server.
guest serve tcp 7003 &
bg=$!
out=$(ip netns exec "$S" "$PROG" send tcp $GUEST 7003 1048576 2>&1)
check_eq "a client outside sends 1 MiB to a guest TCP server" "connect: ok
answer: the same bytes" "$out"
wait "$bg"
st=$?
bg=
check_eq "... which saw all of it (status $st)" "listening
served 1048576 bytes" "$(cat "$E2E_TMP/guest.out")"

# A client in S and a guest UDP server.
guest serve udp 7004 &
bg=$!
out=$(ip netns exec "$S" "$PROG" send udp $GUEST 7004 2>&1)
check_eq "a client outside gets its datagram back from a guest UDP server" \
	"answer: margatad" "$out"
wait "$bg"
bg=
check_eq "... which served it" "listening
served a datagram of 8 bytes" "$(cat "$E2E_TMP/guest.out")"
check_clean "the veth exchanges"
