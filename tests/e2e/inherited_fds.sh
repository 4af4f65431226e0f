#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; check_that expands later
# Descriptors a caller leaks to rung (`rung do 5</secret 7</dir`, or to
# `rung create`/`run` beyond --preserve-fds) are closed before the guest
# runs: no process of the sandbox (sentry, stubs, gofer) holds them, and
# the guest sees only its stdio, or the --preserve-fds ones as 3, 4, ...
# The host side is read from /proc/PID/fd while the guest sleeps, and for
# `create` before the init has run at all.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
OCITEST=$E2E_BIN/ocitest
plan 11

echo 'the secret' >"$T/secret"
mkdir "$T/secretdir"

# tree PID: PID and its descendants, one a line.
tree() {
	echo "$1"
	for c in $(ps -o pid= --ppid "$1"); do tree "$c"; done
}
# leaks PID: the descriptors of PID's tree that name the secret file or
# directory ("pid:fd -> path" a line; nothing when none does).
leaks() {
	for p in $(tree "$1"); do
		for f in /proc/"$p"/fd/*; do
			l=$(readlink "$f" 2>/dev/null) || continue
			case $l in "$T/secret" | "$T/secretdir") echo "$p:${f##*/} -> $l" ;; esac
		done
	done
}
# procs PID: the names of PID's tree, sorted, on one line.
procs() {
	for p in $(tree "$1"); do cat /proc/"$p"/comm 2>/dev/null; done | sort | tr '\n' ' '
}
# wait_line FILE TEXT: until FILE has the line TEXT (10 s at most).
wait_line() {
	i=0
	while ! grep -qx -- "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# --- rung do ---------------------------------------------------------------------
"$RUNG" do -- sh -c 'ls /proc/self/fd | tr "\n" " "; echo; echo ready; sleep 30' \
	</dev/null >"$T/do.out" 2>"$T/do.err" 5<"$T/secret" 7<"$T/secretdir" &
dopid=$!
wait_line "$T/do.out" ready
check_eq "rung do 5<secret 7<dir: the guest has only its stdio (and ls's directory)" \
	"0 1 2 3 " "$(head -n 1 "$T/do.out")"
check_that "... and the sentry, its stubs and its gofer hold neither ($(procs $dopid))" \
	'[ -z "$(leaks $dopid)" ] && procs $dopid | grep -q rung-gofer && procs $dopid | grep -q rung-stub'
leaks "$dopid" | while read -r l; do diag "$l"; done
kill -TERM "$dopid"
wait "$dopid"
check_eq "the sandbox ends on SIGTERM as it would have (status 143)" 143 "$?"

# --- rung create / run ------------------------------------------------------------
if ! command -v jq >/dev/null || [ ! -x "$OCITEST" ]; then
	for _ in $(seq 7); do skip "no jq or no $OCITEST"; done
	check_clean "rung do with leaked descriptors"
	exit 0
fi
ROOT=$T/state
mkdir -p "$T/rootfs/bin"
cp "$OCITEST" "$T/rootfs/bin/ocitest"
CGROUP_PARENT=rung-inherited-fds-$$
# bundle NAME ARGS_JSON: a bundle $T/NAME running ARGS_JSON in the rootfs.
bundle() {
	b=$T/$1
	mkdir -p "$b"
	"$RUNG" spec --bundle "$b" &&
		jq --arg root "$T/rootfs" --argjson args "$2" --arg cg "/$CGROUP_PARENT/$1" \
			'.root.path = $root | .process.terminal = false | .process.args = $args |
			 .linux.cgroupsPath = $cg' "$b/config.json" >"$b/config.tmp" &&
		mv "$b/config.tmp" "$b/config.json"
}

# create: the sandbox waits for start, the init has not run yet.
bundle parked '["/bin/ocitest", "sleep"]'
rung --root "$ROOT" create --bundle "$T/parked" --pid-file "$T/parked.pid" parked \
	</dev/null >"$T/parked.out" 2>"$T/parked.err" 5<"$T/secret" 7<"$T/secretdir"
st=$?
pid=$(cat "$T/parked.pid" 2>/dev/null)
check_that "create 5<secret 7<dir: before start, the sandbox holds neither (status $st)" \
	'[ "$st" = 0 ] && [ -n "$pid" ] && [ -z "$(leaks "$pid")" ]'
rung --root "$ROOT" start parked
sleep 0.5
check_that "... nor once its init runs ($(procs "$pid"))" \
	'[ -z "$(leaks "$pid")" ] && procs "$pid" | grep -q rung-gofer'
leaks "$pid" | while read -r l; do diag "$l"; done
rung --root "$ROOT" kill parked KILL
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
rung --root "$ROOT" delete --force parked

# run: the same from the command that waits for the container.
rung --root "$ROOT" run --bundle "$T/parked" --pid-file "$T/running.pid" running \
	</dev/null >"$T/running.out" 2>"$T/running.err" 5<"$T/secret" 7<"$T/secretdir" &
runpid=$!
i=0
while [ ! -s "$T/running.pid" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
pid=$(cat "$T/running.pid" 2>/dev/null)
sleep 0.5
check_that "run 5<secret 7<dir: the running sandbox holds neither ($(procs "${pid:-$$}"))" \
	'[ -n "$pid" ] && [ -z "$(leaks "$pid")" ] && procs "$pid" | grep -q rung-stub'
rung --root "$ROOT" kill running KILL
wait "$runpid"
check_eq "... and run exits as its init died (SIGKILL: 137)" 137 "$?"

bundle fds '["/bin/ocitest", "fds"]'
rung --root "$ROOT" run --bundle "$T/fds" fds </dev/null >"$T/fds.out" 2>"$T/fds.err" \
	5<"$T/secret" 7<"$T/secretdir"
check_eq "run: the init has only its stdio" "fds: 0 1 2" "$(cat "$T/fds.out")"
rung --root "$ROOT" run --preserve-fds 1 --bundle "$T/fds" pfds </dev/null >"$T/pfds.out" \
	2>"$T/pfds.err" 3<"$T/secret" 5<"$T/secret"
check_eq "run --preserve-fds 1: fd 3 reaches the init as fd 3, fd 5 does not" "fds: 0 1 2 3" \
	"$(cat "$T/pfds.out")"
check_clean "rung do, create and run with leaked descriptors"
left=
for d in /sys/fs/cgroup/"$CGROUP_PARENT" /sys/fs/cgroup/*/"$CGROUP_PARENT"; do
	[ -d "$d" ] || continue
	left="$left$(find "$d" -mindepth 1 -type d)"
	find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
done
check_eq "every container's cgroup was removed" "" "$left"
