# shellcheck shell=sh
# TAP helpers for end-to-end tests (sourced). Each test file prints a plan,
# then one line per check via ok/not_ok, and exits 0 (the TAP driver counts).
#
# Sourcing this file also (after moving the script into a session of its own):
# - makes $E2E_TMP, a scratch directory removed on exit;
# - records which rung processes exist already, so that rung_leftovers and
#   rung_zombies see only what this test left behind, even while other
#   tests (or other people's) run rung at the same time;
# - sets $E2E_BIN, where e2e.mk builds the e2e guest programs, and
#   $GUEST_BIN's default;
# - names $E2E_CGROUP, a cgroup parent of the test's own for its bundles'
#   linux.cgroupsPath, removed (when empty) as the test exits.
#
# The host is never touched: make check's host guard (tests/guard/) fails
# the run when a test changed the host's addresses, routes, network
# namespaces, mounts or cgroups, or left a process behind. The rules that
# keep it so:
# - A test never uses the network namespace it was started in (the host's,
#   in CI), nor changes it. A test that needs a network makes namespaces
#   of its own (ip netns add, a name with $$ in it) and deletes them.
# - Every OCI bundle has a network namespace: {"type": "network"} (a new,
#   empty one) or the path of one of the test's own. A bundle without one
#   would run in the caller's (and the user-space stack would take its
#   interfaces over).
# - `rung do` runs in a namespace of its own: --network sandbox|none make
#   a new one (or join the test's, --netns); --network host uses the
#   caller's, so a test of it runs inside a namespace of its own.
# - netns_own re-runs a whole test inside a namespace of its own (Docker's
#   tests: dockerd, its bridge and the clients; the --network host tests).
#   To run one command in a namespace, nsenter --net=/run/netns/NAME keeps
#   the host's /sys (and so its cgroups); ip netns exec mounts a /sys of
#   the namespace over it.
# - A bundle's cgroups go under $E2E_CGROUP; Docker's under its
#   --cgroup-parent, $E2E_CGROUP too (dockerd.sh).
# Each test script leads a session of its own, so that its leftover checks
# see only its own rung processes even when make runs tests in parallel
# (not when run by hand on a terminal, where Ctrl-C must still work).
if [ -z "${RUNG_E2E_SESSION:-}" ] && [ ! -t 1 ] && command -v setsid >/dev/null; then
	RUNG_E2E_SESSION=1 exec setsid -w sh "$0" "$@"
fi

n=0
plan() {
	e2e_plan=$1
	echo "1..$1"
}
ok() {
	n=$((n + 1))
	printf 'ok %d - %s\n' "$n" "$*"
}
not_ok() {
	n=$((n + 1))
	printf 'not ok %d - %s\n' "$n" "$*"
}
skip() {
	n=$((n + 1))
	printf 'ok %d - # SKIP %s\n' "$n" "$*"
}
# skip_all WHY: the test cannot run here: the checks of its plan not done
# yet are skipped for WHY, and the script ends.
skip_all() {
	while [ "$n" -lt "${e2e_plan:-0}" ]; do
		skip "$1"
	done
	exit 0
}
# diag TEXT...: a TAP comment line per line of TEXT.
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# check_that DESCRIPTION 'SHELL EXPRESSION': ok when the expression (for
# example two tests joined by &&), evaluated at this point, succeeds.
check_that() {
	d=$1
	shift
	if eval "$*"; then ok "$d"; else not_ok "$d"; fi
}
# check_eq DESCRIPTION WANT GOT: ok when the strings are equal.
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "want: $2" "got:  $3"
	fi
}
# check_todo WHY DESCRIPTION 'SHELL EXPRESSION': check_that for a known
# bug (WHY): TAP's "# TODO" form, so that the failure is expected (XFAIL)
# and a pass (XPASS) fails the run until the TODO is taken away.
check_todo() {
	why=$1
	d=$2
	shift 2
	if eval "$*"; then ok "$d # TODO $why"; else not_ok "$d # TODO $why"; fi
}
# contains FILE ERE: does FILE have a line matching the extended regex?
contains() { grep -Eq -- "$2" "$1"; }

: "${RUNG:?RUNG must point at the rung binary}"
E2E_BIN=${E2E_BIN:-$(dirname "$RUNG")/tests/e2e/bin}
GUEST_BIN=${GUEST_BIN:-$(dirname "$RUNG")/tests/guest/bin}
E2E_TIMEOUT=${E2E_TIMEOUT:-60}
# (The names of what a test makes carry its pid, $$: the host guard tells
# another run's from them.)
E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rung-e2e-$$.XXXXXX")
E2E_CGROUP=/rung-e2e-$(basename "$0" .sh)-$$
# e2e_cgroup_remove: remove $E2E_CGROUP (what is empty of it) in every
# hierarchy, v1 and v2.
e2e_cgroup_remove() {
	for d in /sys/fs/cgroup"$E2E_CGROUP" /sys/fs/cgroup/*"$E2E_CGROUP"; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}
# e2e_exit: what every test does as it exits (a test with an EXIT trap of
# its own calls it there).
e2e_exit() {
	e2e_cgroup_remove
	rm -rf "$E2E_TMP"
}
trap e2e_exit EXIT
# A native crash must not leave a core file behind.
# shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -c
ulimit -c 0 2>/dev/null

# rung ARGS...: run rung, killed if it takes longer than $E2E_TIMEOUT seconds
# (status 124 then).
rung() { timeout -k 5 "$E2E_TIMEOUT" "$RUNG" "$@"; }

# Field F of ps for process P, without blanks (empty if P is gone).
psf() { ps -o "$2=" -p "$1" 2>/dev/null | tr -d ' '; }

# rung's processes: the sentry (rung), its stubs (rung-stub), its gofer
# (rung-gofer) and the keeper of its namespace's addresses (rung-netkeep).
RUNG_PROCS='rung|rung-stub|rung-gofer|rung-netkeep'
e2e_sid=$(psf $$ sid)
# rung_pids: the pids of every process named so (pgrep's patterns stop at
# 15 characters).
rung_pids() {
	ps -eo pid=,comm= | awk -v re="^($RUNG_PROCS)\$" '$2 ~ re { print $1 }'
}
e2e_before=" $(rung_pids | tr '\n' ' ') "

# Is process P one this test is answerable for? A sentry shares this
# script's session; a stub, gofer or keeper leads a session of its own,
# and one whose sentry is gone has a parent that is not rung.
rung_ours() {
	case $e2e_before in *" $1 "*) return 1 ;; esac
	sid=$(psf "$1" sid)
	[ -n "$sid" ] || return 1
	[ "$sid" = "$e2e_sid" ] && return 0
	[ "$sid" = "$1" ] && [ "$(psf "$(psf "$1" ppid)" comm)" != rung ]
}

# rung processes (sentries, stubs, gofers) this test left alive, one line each.
rung_leftovers() {
	for p in $(rung_pids); do
		rung_ours "$p" && ps -o pid=,ppid=,sid=,stat=,args= -p "$p"
	done
}

# Zombies this test left: rung processes nobody reaped, and unreaped
# children of this script.
rung_zombies() {
	ps -eo pid=,ppid=,stat=,comm= | while read -r pid ppid stat comm; do
		case $stat in Z*) ;; *) continue ;; esac
		case $comm in rung | rung-stub | rung-gofer | rung-netkeep) ours=1 ;; *) ours= ;; esac
		if [ "$ppid" = $$ ] || { [ -n "$ours" ] && rung_ours "$pid"; }; then
			echo "$pid $ppid $stat $comm"
		fi
	done
}

# check_clean WHAT: one check that WHAT left no rung process and no zombie.
# Stubs and the gofer die with their sentry (PDEATHSIG, PTRACE_O_EXITKILL),
# and orphans are reaped by init, which takes the host a moment: allow up
# to 5 seconds.
check_clean() {
	i=0
	while [ $i -lt 50 ]; do
		left=$(rung_leftovers)
		zombies=$(rung_zombies)
		[ -z "$left$zombies" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$left$zombies" ]; then
		ok "no rung process or zombie left after $1"
	else
		not_ok "no rung process or zombie left after $1"
		diag "$left" "$zombies"
	fi
}

# netns_own "$@": re-run this test (with its arguments) inside a new
# network namespace of its own, its loopback up, deleted when the test
# ends; $E2E_NETNS names it there. Call it before the plan. Fails (and
# the test goes on where it is) without root, ip(8) or nsenter(1).
netns_own() {
	[ -z "${E2E_NETNS:-}" ] || return 0
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v nsenter >/dev/null || return 1
	ns=rung-e2e-$(basename "$0" .sh)-$$
	ip netns add "$ns" || return 1
	trap 'ip netns del "$ns" 2>/dev/null; e2e_exit' EXIT
	trap 'exit 143' TERM INT HUP
	ip -n "$ns" link set lo up
	E2E_NETNS=$ns nsenter --net="/run/netns/$ns" sh "$0" "$@"
	exit $?
}

# host_mounts_hold -x|-s: a test that adds mounts to the host's mount table
# while it runs (dockerd's overlays: docker.sh) holds this lock exclusively;
# a test that compares the host's mount table before and after
# (isolation.sh) holds it shared: neither sees the other's. Held until the
# script exits.
host_mounts_hold() {
	exec 8>/tmp/rung-e2e-host-mounts.lock
	flock "$1" 8
}
