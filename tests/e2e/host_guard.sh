#!/bin/sh
# shellcheck disable=SC2016 # check_that expands its expression later
# The host-state guard of make check (tests/guard/host-guard.sh) catches
# what it is there for. It looks at a network namespace of the test's own
# (--netns), never at the host's, which this test does not touch:
# - an unchanged namespace compares equal, also once an address's finite
#   lifetimes have counted down (volatile: left out);
# - a changed IPv4 address, a removed IPv6 address and a removed default
#   route each fail the compare, which names them; put back, it passes;
# - a process named like rung's (rung-guardtest, a copy of sleep in the
#   test's own directory) left running fails it, named with its pid: one
#   with the run's mark in its environment, and one orphaned without any;
#   one with another run's mark does not count; once they are gone, it
#   passes.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
GUARD=${top_srcdir:-$(dirname "$0")/../..}/tests/guard/host-guard.sh
N=13
plan $N
[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
command -v ip >/dev/null || skip_all "no ip(8)"
command -v jq >/dev/null || skip_all "no jq (apt-get install jq)"

NS=rung-guard-$$
ip netns add "$NS" || skip_all "cannot make a network namespace"
cleanup() {
	for p in ${procs:-}; do kill "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	e2e_exit
}
trap cleanup EXIT
# va carries the default route's subnet and an IPv6 address; vb the address
# that changes, and one with finite lifetimes.
if ! { ip -n "$NS" link add va type veth peer name vb &&
	ip -n "$NS" addr add 10.213.62.1/24 dev va &&
	ip -n "$NS" addr add fd00:213:62::1/64 dev va nodad &&
	ip -n "$NS" addr add 10.213.63.1/24 dev vb &&
	ip -n "$NS" addr add 10.213.64.1/24 dev vb valid_lft 600 preferred_lft 300 &&
	ip -n "$NS" link set va up && ip -n "$NS" link set vb up && ip -n "$NS" link set lo up &&
	ip -n "$NS" route add default via 10.213.62.2; }; then
	skip_all "cannot set up the namespace's veth pair"
fi
# lifetime: the valid lifetime left of 10.213.64.1.
lifetime() {
	ip -n "$NS" -j addr show dev vb | jq '.[].addr_info[] | select(.local == "10.213.64.1") | .valid_life_time'
}

S=$T/state
# guard snapshot|compare: the guard on the namespace's network and on
# processes (not on what the tests running meanwhile change: mounts,
# cgroups, the namespace list); output in $T/out, the report in $T/err,
# status in $st.
guard() {
	sh "$GUARD" "$1" "$S" --netns "$NS" --only net,procs --names '^rung-guardtest$' \
		--settle 0 >"$T/out" 2>"$T/err"
	st=$?
}
# reported TEXT: is TEXT (fixed) in the report?
reported() { grep -qF -- "$1" "$T/err"; }
# passes DESCRIPTION: one check that the last compare passed (else the report).
passes() {
	if [ "$st" = 0 ]; then
		ok "$1"
	else
		not_ok "$1 (status $st)"
		diag "$(cat "$T/err")"
	fi
}

guard snapshot
life0=$(lifetime)
check_that "snapshot of the test's namespace ($st)" '[ $st = 0 ] && [ -s "$S/token" ] && [ -s "$S/addr" ]'
sleep 1.2
guard compare
check_that "unchanged, it compares equal, the lifetimes that counted down left out ($life0 s, then $(lifetime) s; $st)" \
	'[ $st = 0 ] && contains "$T/out" "the host is as it was" && [ "$(lifetime)" -lt "$life0" ]'

# --- addresses and routes ---------------------------------------------------------
ip -n "$NS" addr del 10.213.63.1/24 dev vb
ip -n "$NS" addr add 10.213.63.9/24 dev vb
guard compare
check_that "a changed address fails the compare, naming the old and the new one ($st)" \
	'[ $st = 1 ] && reported "gone:  addr vb inet 10.213.63.1/24" && reported "added: addr vb inet 10.213.63.9/24"'
diag "$(grep -F 10.213.63 "$T/err")"
ip -n "$NS" addr del 10.213.63.9/24 dev vb
ip -n "$NS" addr add 10.213.63.1/24 dev vb
guard compare
passes "put back, it passes"

ip -n "$NS" addr del fd00:213:62::1/64 dev va
guard compare
check_that "a removed IPv6 address fails it, naming the address and its routes ($st)" \
	'[ $st = 1 ] && reported "gone:  addr va inet6 fd00:213:62::1/64" && reported "gone:  route6 fd00:213:62::/64"'
ip -n "$NS" addr add fd00:213:62::1/64 dev va nodad
ip -n "$NS" route del default
guard compare
check_that "a removed default route fails it, naming the route ($st)" \
	'[ $st = 1 ] && reported "gone:  route4 default" && ! reported "addr va"'
ip -n "$NS" route add default via 10.213.62.2
guard compare
passes "both put back, it passes"

# --- processes left behind --------------------------------------------------------------
cp /bin/sleep "$T/rung-guardtest"
RUNG_GUARD_RUN=$(cat "$S/token") "$T/rung-guardtest" 300 </dev/null >/dev/null 2>&1 &
marked=$!
procs=$marked
guard compare
check_that "a process of the run left running fails it, named with its pid ($st)" \
	'[ $st = 1 ] && reported "$marked rung-guardtest: the run'"'"'s (marked)"'
diag "$(grep -F rung-guardtest "$T/err")"
kill "$marked"
wait "$marked" 2>/dev/null
guard compare
passes "gone, it passes"

# Orphaned (its parent gone) with no environment at all, as a sandbox's
# stub or gofer starts: it counts by its name.
orphan=$(env -i /bin/sh -c "'$T/rung-guardtest' 300 </dev/null >/dev/null 2>&1 & echo \$!")
procs="$procs $orphan"
i=0
while [ "$(psf "$orphan" ppid)" != 1 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
guard compare
if [ "$(psf "$orphan" ppid)" = 1 ]; then
	check_that "an orphan named like rung's, unmarked, fails it too ($st)" \
		'[ $st = 1 ] && reported "$orphan rung-guardtest: orphaned, unmarked"'
else
	skip "the orphan was adopted by a subreaper, not pid 1 ($(psf "$orphan" ppid))"
fi
RUNG_GUARD_RUN=another-run "$T/rung-guardtest" 300 </dev/null >/dev/null 2>&1 &
other=$!
procs="$procs $other"
kill "$orphan"
i=0
while [ -d "/proc/$orphan" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
guard compare
check_that "one of another run's (its mark) does not count: it passes ($st)" \
	'[ $st = 0 ] && contains "$T/out" "not counted"'
kill "$other"
wait "$other" 2>/dev/null
procs=

ip netns del "$NS"
check_that "the test's namespace is gone" '! ip netns list | grep -q "^$NS\\b"'
check_clean "the host guard tests"
