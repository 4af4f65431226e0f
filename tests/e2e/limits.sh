#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands later; lib.sh reads E2E_TIMEOUT
# Limits that hold: a guest that tries to take the host's memory or PIDs
# through rung do gets Linux's errors inside the sandbox (ENOMEM, ENOSPC,
# ENOBUFS, EAGAIN, or the OOM killer's SIGKILL), and the host keeps its
# floors while it tries:
#   memory: MemAvailable stays above a quarter of MemTotal;
#   PIDs:   the host's tasks (threads included) stay below half of
#           kernel.pid_max and of kernel.threads-max.
# The memory bombs run under --memory-limit 64M (tests/e2e/membomb.c); the
# fork and thread bombs under --pids-limit and, in robustness.sh, under rung
# do's default. The sandbox is the init of a PID namespace of its own, in a
# cgroup of its own that goes with it. RUNG_E2E_SLOW=1 adds a memory bomb
# under rung do's default limit (half the host's RAM: 40 s here).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
MB=$E2E_BIN/membomb
BOMB=$E2E_BIN/bomb
plan 24

# run NAME ARGS...: rung do ARGS; $T/NAME.out, $T/NAME.err, $st.
run() {
	name=$1
	shift
	rung do "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
out() { tr '\n' '|' <"$T/$1.out"; }
why() {
	diag "status $st; output: $(out "$1")"
	sed 's/^/# stderr: /' "$T/$1.err" | head -5
}

if [ ! -x "$MB" ] || [ ! -x "$BOMB" ]; then
	for _ in $(seq 24); do skip "no $MB or $BOMB"; done
	exit 0
fi

# --- the host's floors, sampled while the bombs run ------------------------------------
MEMTOTAL=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
PID_MAX=$(cat /proc/sys/kernel/pid_max)
THREADS_MAX=$(cat /proc/sys/kernel/threads-max)
TASK_FLOOR=$((PID_MAX < THREADS_MAX ? PID_MAX / 2 : THREADS_MAX / 2))
(
	while :; do
		# MemAvailable (KiB), and every task on the host (loadavg's "n/TOTAL").
		printf '%s %s\n' "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)" \
			"$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)"
		sleep 0.1
	done
) >"$T/host.samples" &
sampler=$!
trap 'kill $sampler 2>/dev/null; rm -rf "$E2E_TMP"' EXIT

# --- memory --------------------------------------------------------------------------------
run anon --memory-limit 64M "$MB" anon 200
check_that "anonymous memory past --memory-limit 64M: mmap fails with ENOMEM (status $st)" \
	'[ "$st" = 0 ] && contains "$T/anon.out" "^anon: [0-9]+ MiB, then ENOMEM\$" &&
	 [ "$(sed -n "s/^anon: \([0-9]*\) MiB.*/\1/p" "$T/anon.out")" -le 64 ] &&
	 contains "$T/anon.out" "^after: ok\$"'
[ "$st" = 0 ] || why anon

run procs --memory-limit 64M "$MB" procs 3 30
check_that "three processes of 30 MiB each under 64M: the OOM monitor ends one with SIGKILL, the rest go on (status $st: $(out procs))" \
	'[ "$st" = 0 ] && contains "$T/procs.out" "^procs: [12] killed by SIGKILL, [12] exited\$" &&
	 contains "$T/procs.out" "^after: ok\$"'
check_that "... and says so, with the process it chose" \
	'contains "$T/procs.err" "out of memory: .* killed process [0-9]+ \(membomb\)"'
[ "$st" = 0 ] || why procs

run tmp --memory-limit 64M sh -c 'dd if=/dev/zero of=/tmp/f bs=1M count=512 2>&1; echo "dd: $?"
	rm /tmp/f && dd if=/dev/zero of=/tmp/g bs=1M count=8 2>/dev/null && echo "again: ok"'
check_that "writing 512 MiB to /tmp under 64M: ENOSPC, and room again once the file goes (status $st)" \
	'[ "$st" = 0 ] && contains "$T/tmp.out" "No space left on device" &&
	 contains "$T/tmp.out" "^dd: 1\$" && contains "$T/tmp.out" "^again: ok\$"'
[ "$st" = 0 ] || why tmp

run fallocate --memory-limit 64M sh -c 'fallocate -l 1G /tmp/big; echo "fallocate: $?"; ls /tmp/big 2>/dev/null || echo absent'
check_that "fallocate of 1 GiB in /tmp under 64M: ENOSPC (status $st)" \
	'[ "$st" = 0 ] && contains "$T/fallocate.out" "^fallocate: 1\$" && contains "$T/fallocate.err" "No space left on device"'

run files --memory-limit 64M "$MB" files /tmp
check_that "creating files in /tmp under 64M: ENOSPC (inodes count), then the sandbox still works (status $st)" \
	'[ "$st" = 0 ] && [ "$(out files)" = "files: ENOSPC after more than 1000|after: ok|" ]'
[ "$st" = 0 ] || why files

run pipes --memory-limit 64M "$MB" pipes
check_that "filling pipes under 64M: a write fails with ENOMEM (status $st)" \
	'[ "$st" = 0 ] && contains "$T/pipes.out" "^pipes: [0-9]+ filled, then ENOMEM \(write\)\$" &&
	 contains "$T/pipes.out" "^after: ok\$"'
[ "$st" = 0 ] || why pipes

run unix --memory-limit 64M "$MB" unix
check_that "filling unix sockets under 64M: a send fails with ENOBUFS (status $st)" \
	'[ "$st" = 0 ] && contains "$T/unix.out" "^unix: [0-9]+ MiB queued, then ENOBUFS\$" &&
	 contains "$T/unix.out" "^after: ok\$"'
[ "$st" = 0 ] || why unix

run meminfo --memory-limit 64M sh -c 'grep MemTotal /proc/meminfo; df -k /tmp | tail -1'
check_that "/proc/meminfo and df /tmp show the 64 MiB" \
	'contains "$T/meminfo.out" "^MemTotal: +65536 kB\$" && contains "$T/meminfo.out" "^[^ ]+ +65536 "'

check_clean "the memory bombs"

# --- tasks ----------------------------------------------------------------------------------
run fork --pids-limit 64 "$BOMB" fork
check_eq "a fork bomb under --pids-limit 64: EAGAIN after 63 children, then fork works again" \
	"fork: 63 children, then EAGAIN|fork after: ok|" "$(out fork)"
run threads --pids-limit 100 "$BOMB" threads
check_eq "a thread bomb under --pids-limit 100: EAGAIN after 99 threads" \
	"threads: 99, then EAGAIN|" "$(out threads)"
E2E_TIMEOUT=240
run deffork "$BOMB" fork
check_eq "a fork bomb under rung do's default (1024 tasks): EAGAIN after 1023 children" \
	"fork: 1023 children, then EAGAIN|fork after: ok|" "$(out deffork)"
E2E_TIMEOUT=60
run badpids --pids-limit 0 true
check_that "--pids-limit 0 is refused" '[ "$st" != 0 ] && contains "$T/badpids.err" "pids-limit"'
check_clean "the task bombs"

# --- the sandbox process: a PID namespace and a cgroup of its own --------------------------
# sandbox_of PID: the sandbox process rung do PID started (waiting for it
# a few seconds at most), a moment after it started. (Its other child is
# rung-cgclean, which removes the cgroup should rung do be killed.)
sandbox_of() {
	i=0
	while [ -z "$(pgrep -x -P "$1" rung)" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	pgrep -x -P "$1" rung | head -1
}
"$RUNG" do --memory-limit 100M --pids-limit 50 sleep 3 >"$T/ns.out" 2>&1 </dev/null &
sup=$!
sb=$(sandbox_of "$sup")
nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$sb/status" 2>/dev/null)
check_that "the sandbox process is pid 1 of a PID namespace of its own, under rung do's process" \
	'[ -n "$sb" ] && [ "$nspid" = 1 ] && [ "$(psf "$sb" comm)" = rung ]'
cg=$(awk -F: '$2 == "pids" || $2 == "" { print $3; exit }' "/proc/$sb/cgroup" 2>/dev/null)
if [ "$(id -u)" = 0 ] && [ -n "$cg" ] && [ "${cg#/rung/do-}" != "$cg" ]; then
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		pmax=$(cat "/sys/fs/cgroup$cg/pids.max")
		mmax=$(cat "/sys/fs/cgroup$cg/memory.max")
	else
		pmax=$(cat "/sys/fs/cgroup/pids$cg/pids.max")
		mmax=$(cat "/sys/fs/cgroup/memory$cg/memory.limit_in_bytes")
	fi
	# 4 * 50 + 64 host tasks; 100 MiB and the sandbox's own 64 MiB.
	check_that "... in the cgroup $cg: pids.max $pmax (264), memory $mmax (171966464)" \
		'[ "$pmax" = 264 ] && [ "$mmax" = 171966464 ]'
	wait "$sup"
	check_that "... which is gone with the sandbox" \
		'[ ! -e "/sys/fs/cgroup$cg" ] && [ ! -e "/sys/fs/cgroup/pids$cg" ] && [ ! -e "/sys/fs/cgroup/memory$cg" ]'
	# rung do killed outright: its cleaner removes the cgroup (and failing
	# that, the next rung do does).
	"$RUNG" do sleep 30 >/dev/null 2>&1 </dev/null &
	sup=$!
	sandbox_of "$sup" >/dev/null
	kill -9 "$sup"
	wait "$sup" 2>/dev/null
	stale=/rung/do-$sup
	i=0
	while [ -n "$(cat /sys/fs/cgroup/pids$stale/cgroup.procs /sys/fs/cgroup$stale/cgroup.procs 2>/dev/null)" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rung do true
	check_that "the cgroup of a rung do killed with SIGKILL is removed" \
		'[ ! -e "/sys/fs/cgroup$stale" ] && [ ! -e "/sys/fs/cgroup/pids$stale" ]'
else
	wait "$sup"
	skip "no cgroup of its own here (not root, or no writable cgroup file system)"
	skip "no cgroup"
	skip "no cgroup"
fi
check_clean "the sandbox in its namespaces"

# --- rung do's default memory limit ------------------------------------------------------------
if [ "${RUNG_E2E_SLOW:-}" = 1 ]; then
	E2E_TIMEOUT=600
	run defmem "$MB" anon 10000000
	check_that "anonymous memory under rung do's default limit (half the host's RAM): ENOMEM (status $st)" \
		'[ "$st" = 0 ] && contains "$T/defmem.out" "^anon: [0-9]+ MiB, then ENOMEM\$" &&
		 [ "$(sed -n "s/^anon: \([0-9]*\) MiB.*/\1/p" "$T/defmem.out")" -le $((MEMTOTAL / 2048 + 1)) ]'
	E2E_TIMEOUT=60
else
	skip "a memory bomb under rung do's default limit (half the host's RAM: tens of seconds); RUNG_E2E_SLOW=1 runs it"
fi
check_clean "the default-limit bomb"

# --- the host's floors ---------------------------------------------------------------------------
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
minavail=$(awk 'NF == 2 { print $1 }' "$T/host.samples" | sort -n | head -1)
maxtasks=$(awk 'NF == 2 { print $2 }' "$T/host.samples" | sort -n | tail -1)
check_that "the host's MemAvailable stayed above a quarter of MemTotal (lowest ${minavail} of ${MEMTOTAL} kB)" \
	'[ -n "$minavail" ] && [ "$minavail" -gt $((MEMTOTAL / 4)) ]'
check_that "the host's tasks stayed below half of pid_max and threads-max (highest $maxtasks, floor $TASK_FLOOR)" \
	'[ -n "$maxtasks" ] && [ "$maxtasks" -lt "$TASK_FLOOR" ]'
