#!/bin/sh
# Differential guest tests (TAP): every program in $GUEST_BIN runs natively
# and under `rung do` on every platform `rung help platforms` calls usable;
# stdout and the exit status must be identical.
#
# The programs are those named in $GUEST_BIN/${GUEST_LIST:-tests.list}
# (NAME-static and NAME-pie for each NAME; written by guest.mk, which also
# writes pending.list), or every executable there. Program NAME gets
# tests/guest/NAME.stdin as stdin when that file exists, /dev/null
# otherwise. The file system tests (fs_*) run in rung once with each
# --file-access mode, the network tests (net_*) once with each
# --network mode of $GUEST_NET_MODES (default: host sandbox none), the
# stack's own tests (nstack_*) with --network=sandbox. A program that exits 77 natively lacks something on
# this host (and prints "SKIP: why"): its runs are skipped. Both runs are
# in a network namespace of the test's own (loopback only: --network host
# uses it), never the caller's, where root can make one. A rung run
# that takes longer than $GUEST_TIMEOUT seconds (default 60) is killed and
# fails.
set -u
: "${RUNG:?RUNG must point at the rung binary}"
: "${GUEST_BIN:?GUEST_BIN must point at the built guest tests}"
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
timeout=${GUEST_TIMEOUT:-60}

platforms=$("$RUNG" help platforms | awk '$2 == "usable" { print $1 }')
skipped=$("$RUNG" help platforms | awk '$2 != "usable"')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Ended by a signal, the shell runs the EXIT trap only when it exits itself
# (a stopped check left its network namespace behind otherwise).
trap 'exit 143' TERM INT HUP
# The network namespace of the runs (nsenter keeps the host's /sys).
netns=
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v nsenter >/dev/null &&
	ip netns add "rung-guest-$$" 2>/dev/null; then
	trap 'rm -rf "$tmp"; ip netns del "rung-guest-$$"' EXIT
	ip -n "rung-guest-$$" link set lo up
	netns="nsenter --net=/run/netns/rung-guest-$$"
fi
# A native crash must not leave a core file behind (nor call a core handler).
# shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -c
ulimit -c 0 2>/dev/null

list=$GUEST_BIN/${GUEST_LIST:-tests.list}
if [ -f "$list" ]; then
	bins=$(sed "s|.*|$GUEST_BIN/&-static $GUEST_BIN/&-pie|" "$list")
else
	bins=$(ls "$GUEST_BIN"/* 2>/dev/null)
fi

# The --network modes the network tests (net_*) run in (GUEST_NET_MODES).
# The user-space stack's own tests (nstack_*) run in sandbox mode.
net_modes=${GUEST_NET_MODES:-host sandbox none}

# modes NAME: the --file-access modes program NAME runs with in rung, or
# its network=MODE runs ("default": no option).
modes() {
	case $(basename "$1") in
	fs_*) echo direct gofer ;;
	net_*) for nm in $net_modes; do echo "network=$nm"; done ;;
	nstack_*) echo network=sandbox ;;
	*) echo default ;;
	esac
}

n=0
total=0
for bin in $bins; do
	[ -f "$bin" ] && [ ! -x "$bin" ] && continue
	for p in $platforms; do
		for m in $(modes "$bin"); do total=$((total + 1)); done
	done
done
echo "1..$total"
[ -n "$skipped" ] && echo "# platforms skipped: $skipped"
[ -n "$netns" ] || echo "# no network namespace of its own (needs root, ip, nsenter): the runs use the caller's"

# run_guest OUT ERR COMMAND...: the fixed environment, arguments and stdin
# of a guest run, so that what the program prints is the same both ways.
run_guest() {
	out=$1 err=$2
	shift 2
	# shellcheck disable=SC2086 # $netns: words or none
	env -i PATH=/usr/bin:/bin HOME=/ LANG=C RUNG_GUEST_TEST=1 $netns "$@" a1 "two words" \
		<"$stdin" >"$out" 2>"$err"
}

for bin in $bins; do
	name=$(basename "$bin")
	if [ ! -e "$bin" ]; then
		for p in $platforms; do
			for m in $(modes "$bin"); do
				n=$((n + 1))
				echo "not ok $n - $name on $p: not built"
			done
		done
		continue
	fi
	[ -x "$bin" ] || continue
	base=${name%-static}
	base=${base%-pie}
	stdin=/dev/null
	[ -f "$srcdir/tests/guest/$base.stdin" ] && stdin=$srcdir/tests/guest/$base.stdin
	run_guest "$tmp/native.out" "$tmp/native.err" "$bin"
	native=$?
	for p in $platforms; do
		for m in $(modes "$bin"); do
			n=$((n + 1))
			what="$name on $p"
			opt=
			case $m in
			default) ;;
			network=*)
				what="$what, --$m"
				opt=--$m
				;;
			*)
				what="$what, --file-access=$m"
				opt=--file-access=$m
				;;
			esac
			if [ "$native" = 77 ]; then
				why=$(sed -n 's/^SKIP: //p' "$tmp/native.out" | head -n 1)
				echo "ok $n - $what # SKIP natively: ${why:-exit status 77}"
				continue
			fi
			# shellcheck disable=SC2086 # $opt is one word or none
			run_guest "$tmp/rung.out" "$tmp/rung.err" \
				timeout -k 5 "$timeout" "$RUNG" "do" --platform "$p" $opt "$bin"
			got=$?
			if [ "$got" = "$native" ] && cmp -s "$tmp/native.out" "$tmp/rung.out"; then
				echo "ok $n - $what (status $got)"
			else
				# rung's first FAIL line (else the first line that differs)
				# goes on the result line too: a CI summary shows only those.
				first=$(diff -a "$tmp/native.out" "$tmp/rung.out" >"$tmp/diff"
					{ grep -a '^> .*FAIL' "$tmp/diff" || grep -a '^[<>]' "$tmp/diff"; } |
						head -1 | cut -c1-120 | tr -cd '[:print:]')
				echo "not ok $n - $what: status native $native, rung $got${first:+ ($first)}"
				[ "$got" = 124 ] && echo "# rung was killed after ${timeout}s"
				diff -a "$tmp/native.out" "$tmp/rung.out" | cat -v | sed 's/^/# /' |
					head -40
				cat -v "$tmp/rung.err" | sed 's/^/# rung stderr: /' | head -20
			fi
		done
	done
done
exit 0
