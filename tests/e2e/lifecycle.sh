#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; check_that expands later
# A sandbox's life and death: host signals to rung end the guest with
# 128 + signal, killing the sentry or the stub leaves nothing behind,
# closed and piped stdio behave as for a native program, the memory
# limit, several sandboxes at once. After each way of ending, no rung
# process and no zombie may be left.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
BB=/bin/busybox
T=$E2E_TMP
plan 23
LOOP='while :; do :; done'

# wait_for PID SECONDS: wait for PID (a child) to end, killing it with
# SIGKILL if it takes longer; sets $st to its status (or "hung").
wait_for() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		wait "$1"
		st=hung
	else
		wait "$1"
		st=$?
	fi
}

# started PID: wait until the sandbox of rung PID runs guest code (it has a
# stub: a child of the sentry, which is PID itself or, under rung do's
# supervisor, PID's child), at most 5 seconds; prints the stub's pid. By
# name alone a child called rung could be the supervisor's cleaner before
# it names itself.
started() {
	i=0
	while [ $i -lt 50 ]; do
		s=$(for p in "$1" $(pgrep -P "$1"); do pgrep -P "$p" -x rung-stub; done | head -n 1)
		if [ -n "$s" ]; then
			echo "$s"
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# signal_ends SIGNAL STATUS: a busy guest ends with STATUS when rung gets SIGNAL.
signal_ends() {
	"$RUNG" do -- "$BB" sh -c "$LOOP" </dev/null &
	pid=$!
	started "$pid" >/dev/null
	kill "-$1" "$pid"
	wait_for "$pid" 10
	check_eq "SIG$1 to rung ends the guest with status $2" "$2" "$st"
}

if [ ! -x "$BB" ]; then
	for _ in $(seq 23); do skip "no $BB"; done
	exit 0
fi

# --- host signals ---------------------------------------------------------------
signal_ends TERM 143
signal_ends HUP 129
# A background job of a script starts with SIGINT ignored (and keeps it
# ignored); env --default-signal undoes that where coreutils has it.
if env --default-signal=INT true 2>/dev/null; then
	env --default-signal=INT "$RUNG" do -- "$BB" sh -c "$LOOP" </dev/null &
	pid=$!
	started "$pid" >/dev/null
	kill -INT "$pid"
	wait_for "$pid" 10
	check_eq "SIGINT to rung ends the guest with status 130" 130 "$st"
else
	skip "env --default-signal is missing"
fi
check_clean "host signals"

# --- SIGKILL of the sentry, SIGKILL of the stub ---------------------------------------
"$RUNG" do -- "$BB" sh -c "$LOOP" </dev/null &
pid=$!
stub=$(started "$pid")
check "the busy sandbox has a stub process" [ -n "$stub" ]
kill -KILL "$pid"
wait_for "$pid" 10
check_eq "SIGKILL of the sentry: status 137" 137 "$st"
check_clean "SIGKILL of the sentry"

"$RUNG" do -- "$BB" sh -c "$LOOP" </dev/null >/dev/null 2>"$T/stubkill.err" &
pid=$!
stub=$(started "$pid")
[ -n "$stub" ] && kill -KILL "$stub"
wait_for "$pid" 10
check_that "SIGKILL of the stub ends the sandbox (status $st), not hangs it" \
	'[ "$st" != hung ] && [ "$st" != 0 ]'
check_clean "SIGKILL of the stub"

# --- stdio --------------------------------------------------------------------------
# A pipe reader that goes away: the guest gets SIGPIPE, as natively (141).
{
	rung do -- "$BB" yes 2>/dev/null
	echo $? >"$T/yes.st"
} | head -n 1 >"$T/yes.out"
check_eq "busybox yes into a closed pipe ends with SIGPIPE (141), as natively" \
	"y 141" "$(cat "$T/yes.out") $(cat "$T/yes.st")"
out=$(printf 'a\nb\nc\n' | rung do -- "$BB" wc -l)
check_eq "a piped stdin reaches the guest" 3 "$out"
out=$(rung do -- "$BB" seq 1 100000 | cksum)
check_eq "100000 lines through a pipe arrive intact" "$("$BB" seq 1 100000 | cksum)" "$out"

# native_vs_rung DESCRIPTION REDIRECTIONS ARGS...: status and output (both
# streams, into one file) of busybox ARGS natively and in the sandbox, the
# shell redirections REDIRECTIONS applied to both (evaluated).
native_vs_rung() {
	d=$1 redir=$2
	shift 2
	eval "\"\$BB\" \"\$@\" $redir" >"$T/nat" 2>&1
	ns=$?
	eval "timeout -k 5 \"\$E2E_TIMEOUT\" \"\$RUNG\" do -- \"\$BB\" \"\$@\" $redir" >"$T/rung" 2>&1
	rs=$?
	if [ "$ns" = "$rs" ] && cmp -s "$T/nat" "$T/rung"; then
		ok "$d (status $rs)"
	else
		not_ok "$d: status native $ns, rung $rs"
		diff "$T/nat" "$T/rung" | head -c 2000 | cat -v | sed 's/^/# /' | head -20
	fi
}
# With one of the standard descriptors closed, the sentry's own files (the
# memory file above all) must not take its place in the guest.
native_vs_rung "echo with stdout closed fails with EBADF" '>&-' echo hello
native_vs_rung "head with stdin closed fails with EBADF" '<&-' head -c 16
native_vs_rung "echo to a closed stderr fails" '2>&-' sh -c 'echo oops >&2'

# The fds guest with stdout a pipe: lseek and pwrite fail with ESPIPE.
if [ -x "$GUEST_BIN/fds-static" ]; then
	env -i RUNG_GUEST_TEST=1 "$GUEST_BIN/fds-static" </dev/null 2>&1 | cat >"$T/fds.nat"
	env -i RUNG_GUEST_TEST=1 "$RUNG" do -- "$GUEST_BIN/fds-static" </dev/null 2>&1 |
		cat >"$T/fds.rung"
	check "the fds guest with stdout a pipe prints the same as natively" \
		cmp -s "$T/fds.nat" "$T/fds.rung"
	check "... including lseek on the pipe failing with ESPIPE" \
		contains "$T/fds.rung" '^ok: lseek on a pipe fails with ESPIPE'
else
	skip "no fds guest"
	skip "no fds guest"
fi
check_clean "the stdio tests"

# --- the memory limit -------------------------------------------------------------------
if [ -x "$GUEST_BIN/bigalloc-static" ]; then
	rung do --memory-limit 64M -- "$GUEST_BIN/bigalloc-static" >"$T/mem.out" 2>&1
	st=$?
	check_eq "with --memory-limit 64M, the 256 MiB test fails cleanly (status 1)" 1 "$st"
	check "... because malloc of 256 MiB returned NULL" \
		contains "$T/mem.out" '^FAIL: malloc 256 MiB'
	check "... while PROT_NONE reservations do not count" \
		contains "$T/mem.out" '^ok: reserve 16 GiB PROT_NONE'
else
	for i in 1 2 3; do skip "no bigalloc guest"; done
fi

# --- several sandboxes at once ---------------------------------------------------------
pids=
for i in 1 2 3 4; do
	rung do -- "$BB" sh -c "i=0; while [ \$i -lt 2000 ]; do i=\$((i+1)); done; echo $i; exit $i" \
		>"$T/par.$i" </dev/null 2>&1 &
	pids="$pids $!"
done
i=0
good=0
for p in $pids; do
	i=$((i + 1))
	wait "$p"
	[ $? = "$i" ] && [ "$(cat "$T/par.$i")" = "$i" ] && good=$((good + 1))
done
check_eq "four sandboxes at once each exit with their own status and output" 4 "$good"
check_clean "four sandboxes at once"
