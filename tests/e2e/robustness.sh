#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands later; lib.sh reads E2E_TIMEOUT
# Guests that try to exhaust or wedge the sandbox (tests/e2e/bomb.c): fork
# and thread bombs against the sandbox's task limit and RLIMIT_NPROC, an
# unbounded queue of real-time signals, two processes signalling each other
# forever (ended by a host SIGTERM), a process that blocks and ignores every
# signal (ended by kill -9 from inside). In each case the sentry must
# survive, the limit must hold, the sandbox must end with the right status,
# and nothing may be left on the host: no rung process, no zombie, no host
# process named after a guest program, nothing holding the sandbox's memory
# file, no new file in /dev/shm.
#
# A fork bomb up to the full task limit makes one address space (a stub
# process) per task: at rung do's default limit, a few seconds. Also: the
# limit reached with one process full of threads and a few dozen forks,
# the classic bomb for a few seconds at the limit, and a thread bomb in a
# process of its own. tests/e2e/limits.sh has the memory bombs, explicit
# limits and the host's side.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
BOMB=$E2E_BIN/bomb
plan 23

# rung do's default task limit, from the source.
KH=$(dirname "$0")/../../runsc-compat/do_supervisor.h
LIMIT=$(sed -n 's/^#define DO_DEFAULT_TASK_LIMIT[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$KH" 2>/dev/null)
: "${LIMIT:=1024}"

shm_before=$(find /dev/shm -mindepth 1 -maxdepth 1 2>/dev/null | sort)
bomb_before=$(pgrep -x bomb | tr '\n' ' ')

# run NAME ARGS...: rung do ARGS (time limit $E2E_TIMEOUT); $T/NAME.out and
# $T/NAME.err, $st.
run() {
	name=$1
	shift
	rung do "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
# out NAME: the output of run NAME, on one line.
out() { tr '\n' '|' <"$T/$1.out"; }
# why NAME: diagnostics of a run that went wrong.
why() {
	diag "status $st; output: $(out "$1")"
	sed 's/^/# stderr: /' "$T/$1.err" | head -5
}

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

# wait_file FILE SECONDS: until FILE is not empty (at most SECONDS).
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}

if [ ! -x "$BOMB" ]; then
	for _ in $(seq 23); do skip "no $BOMB"; done
	exit 0
fi

# --- many tasks at once ---------------------------------------------------------------
# The sentry runs a host thread per guest task. Once more than 8 of them have
# used malloc, glibc sizes its arena limit with get_nprocs(), which ends in
# sched_getaffinity: the sentry's seccomp filter must allow it.
run many "$BOMB" fork 16
check_that "17 processes at once: 16 children made, reaped, and one more (status $st)" \
	'[ "$st" = 0 ] && [ "$(out many)" = "fork: 16 children, then no error|fork after: ok|" ]'

# --- the task limit --------------------------------------------------------------------
# One sandbox: a thread bomb, then fork up to the limit, then the classic
# fork bomb in the room left (see bomb.c). Each check also wants the
# sandbox to have ended as it should (42).
E2E_TIMEOUT=240
run limits "$BOMB" limits 3
check_that "a thread bomb: pthread_create fails with EAGAIN at the task limit ($((LIMIT - 2)) threads + 2 processes)" \
	'[ "$st" = 42 ] && contains "$T/limits.out" "^filler: $((LIMIT - 2)) threads, then EAGAIN\$"'
check_that "fork fails with EAGAIN at the task limit ($LIMIT tasks)" \
	'[ "$st" = 42 ] && contains "$T/limits.out" "^fork: [0-9]+ threads \+ [1-9][0-9]* children \+ 2 processes = $LIMIT tasks, then EAGAIN\$"'
check_that "... and once the children are reaped, fork works again" \
	'[ "$st" = 42 ] && contains "$T/limits.out" "^fork after: ok\$" && ! contains "$T/limits.out" "not reaped"'
check_that "a fork bomb at the task limit for 3 s: the init lives on and ends the sandbox with its status (42, got $st)" \
	'[ "$st" = 42 ] && contains "$T/limits.out" "^init alive\$"'
[ "$st" = 42 ] || why limits
check_clean "the fork and thread bombs"

# The full fork bomb at the default (five seconds of both CPUs, which
# slows the tests beside it) is limits.sh's; RUNG_E2E_SLOW=1 runs it here
# too. The thread bomb is cheap.
E2E_TIMEOUT=240
if [ "${RUNG_E2E_SLOW:-}" = 1 ]; then
	run full "$BOMB" fork
	check_that "a fork bomb of $((LIMIT - 1)) processes: fork fails with EAGAIN, then works again (status $st)" \
		'[ "$st" = 0 ] && [ "$(out full)" = "fork: $((LIMIT - 1)) children, then EAGAIN|fork after: ok|" ]'
else
	skip "a fork bomb of $((LIMIT - 1)) processes (limits.sh has it); RUNG_E2E_SLOW=1 runs it here too"
fi
run threads "$BOMB" threads
check_that "a thread bomb in the init: EAGAIN at $LIMIT tasks, then exit_group ends them all (status $st)" \
	'[ "$st" = 0 ] && [ "$(out threads)" = "threads: $((LIMIT - 1)), then EAGAIN|" ]'
E2E_TIMEOUT=60

# RLIMIT_NPROC binds a user other than root: the guest takes a uid first.
# Natively (as root here) the same program shows what Linux does.
if [ "$(id -u)" = 0 ]; then
	"$BOMB" nproc 20 54321 >"$T/nproc.nat" 2>&1
	run nproc "$BOMB" nproc 20 54321
	check_that "RLIMIT_NPROC 20 for uid 54321: fork fails with EAGAIN after 19 children, as natively (status $st)" \
		'[ "$st" = 0 ] && cmp -s "$T/nproc.nat" "$T/nproc.out" && [ "$(out nproc)" = "nproc: 19 children, then EAGAIN|" ]'
	[ "$st" = 0 ] || why nproc
else
	skip "RLIMIT_NPROC: the native comparison needs root for setuid"
fi

# --- signals ---------------------------------------------------------------------------
# Real-time signals queue; RLIMIT_SIGPENDING bounds how many (sigqueue
# fails with EAGAIN past it), so a guest cannot grow the sentry's memory.
run sigq "$BOMB" sigqueue 1000
check_that "sigqueue fails with EAGAIN at RLIMIT_SIGPENDING (1000) (status $st)" \
	'[ "$st" = 0 ] && [ "$(out sigq)" = "sigqueue: 1000 queued, then EAGAIN|" ]'

# Two processes signalling each other forever; a host SIGTERM ends it all.
"$RUNG" do -- "$BOMB" storm >"$T/storm.out" 2>"$T/storm.err" </dev/null &
pid=$!
wait_file "$T/storm.out" 20
sleep 1
kill -TERM "$pid"
wait_for "$pid" 10
check_eq "a signal storm between two processes ends with the host's SIGTERM (143)" 143 "$st"
check_eq "... after it started" "storm|" "$(out storm)"
check_clean "the signal storm"

# A guest process that blocks every signal and ignores the catchable ones:
# only SIGKILL from inside ends it.
ready=/tmp/rung-robustness-$$.ready
run immortal sh -c '"$0" immortal "$1" & p=$!
	i=0; while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
	for s in TERM INT HUP QUIT USR1 USR2 ALRM PIPE CHLD CONT TSTP; do kill -$s $p; done
	sleep 0.3
	kill -0 $p && echo alive
	kill -9 $p; wait $p' "$BOMB" "$ready"
check_eq "a process that blocks and ignores every signal lives through 11 of them" \
	"immortal|alive|" "$(out immortal)"
check_eq "... and kill -9 from inside ends it: wait says 137, so does the sandbox" 137 "$st"
[ "$st" = 137 ] || why immortal

# The same program as the guest's init: a host SIGTERM still ends the sandbox.
"$RUNG" do -- "$BOMB" immortal >"$T/init.out" 2>"$T/init.err" </dev/null &
pid=$!
wait_file "$T/init.out" 20
kill -TERM "$pid"
wait_for "$pid" 10
check_eq "an init that ignores every signal: the host's SIGTERM ends the sandbox (143)" 143 "$st"
"$RUNG" do -- "$BOMB" immortal >"$T/init.out" 2>"$T/init.err" </dev/null &
pid=$!
wait_file "$T/init.out" 20
kill -KILL "$pid"
wait_for "$pid" 10
check_eq "... and the host's SIGKILL (137)" 137 "$st"
check_clean "the signal workloads"

# --- nothing left on the host -----------------------------------------------------------
strays=
for p in $(pgrep -x bomb); do
	case " $bomb_before " in *" $p "*) ;; *) strays="$strays $p" ;; esac
done
check_eq "no host process named after the guest program (bomb)" "" "$strays"
[ -z "$strays" ] || ps -o pid=,ppid=,stat=,args= -p "$(echo "$strays" | tr ' ' ',' | sed 's/^,//')" | sed 's/^/# /'
# The memory file is a memfd that only the sentry and its stubs may hold.
holders=
for d in /proc/[0-9]*; do
	case $(cat "$d/comm" 2>/dev/null) in rung | rung-stub | rung-gofer | '') continue ;; esac
	held=
	for f in "$d"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in *memfd:rung-memory*) held=1 ;; esac
	done
	grep -q 'memfd:rung-memory' "$d/maps" 2>/dev/null && held=1
	[ -z "$held" ] || holders="$holders ${d#/proc/}"
done
check_eq "no process but rung's holds a sandbox's memory file" "" "$holders"
shm_after=$(find /dev/shm -mindepth 1 -maxdepth 1 2>/dev/null | sort)
check_eq "no new file in /dev/shm" "$shm_before" "$shm_after"
check_that "no file from the guest in the host's /tmp" '! ls -d /tmp/rung-robustness-$$.* 2>/dev/null'
check_clean "the robustness tests"
