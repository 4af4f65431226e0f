#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; sh -c expands later
# What programs learn of the sandbox from sysinfo(2) and /proc: sort sizes
# its buffer from sysinfo and sorts 100,000 lines without a temporary file
# (it wrote 13,000 when sysinfo was ENOSYS; the files are counted in
# --strace's log of what it creates in $TMPDIR, and a sort told to use a
# small buffer shows that the count sees them); python3's os.sysconf and
# procps' free report the sandbox's memory (its --memory-limit), as
# /proc/meminfo does; ps shows a sleeping (S), a spinning (R), a stopped
# (T) and a dead, unreaped (Z) process, and CPU time for the spinning one;
# /proc/sys/kernel/version is uname -v. The guest side is
# tests/guest/sysinfo.c, proc_stat_state.c and proc_files.c.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
plan 12

# sort_files ARGS...: sort ARGS of 100,000 numbers in rung with TMPDIR
# /tmp/st; $T/sort.out its output, $files the temporary files it made.
sort_files() {
	rung do --strace -- sh -c 'mkdir -p /tmp/st && seq 1 100000 | TMPDIR=/tmp/st sort "$@" -rn | head -1' \
		sort "$@" </dev/null >"$T/sort.out" 2>"$T/sort.err"
	st=$?
	files=$(grep -c 'openat(.*"/tmp/st/sort[^"]*", .*) = [0-9]' "$T/sort.err")
}

sort_files
check_that "sort -rn of 100,000 lines: no temporary file ($files; status $st)" \
	'[ "$st" = 0 ] && [ "$(cat "$T/sort.out")" = 100000 ] && [ "$files" = 0 ]'
sort_files -S 64k
check_that "sort -S 64k of the same: the count sees its temporary files ($files)" \
	'[ "$st" = 0 ] && [ "$(cat "$T/sort.out")" = 100000 ] && [ "$files" -gt 10 ]'

# In a sandbox of 512 MiB: sysconf, meminfo and free agree on it.
mem="--memory-limit 512m"
# shellcheck disable=SC2086 # $mem is two words
rung do $mem -- python3 -c 'import os; print(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))' \
	</dev/null >"$T/py.out" 2>"$T/py.err"
check_eq "python3: SC_PHYS_PAGES * SC_PAGE_SIZE is the memory limit" 536870912 "$(cat "$T/py.out")"
# shellcheck disable=SC2086
rung do $mem -- sh -c 'head -1 /proc/meminfo; free -b' </dev/null >"$T/free.out" 2>"$T/free.err"
check_that "/proc/meminfo: MemTotal is the memory limit" \
	'grep -Eq "^MemTotal: +524288 kB$" "$T/free.out"'
check_that "free -b: total is the limit, used + free within it, no swap" \
	'awk '"'"'$1 == "Mem:" { ok = $2 == 536870912 && $3 + $4 <= $2 } $1 == "Swap:" { sw = $2 == 0 }
	     END { exit !(ok && sw) }'"'"' "$T/free.out"'
rung do -- python3 -c 'import os; print(os.sysconf("SC_AVPHYS_PAGES") > 0 and
	os.sysconf("SC_AVPHYS_PAGES") <= os.sysconf("SC_PHYS_PAGES"))' </dev/null >"$T/av.out" 2>&1
check_eq "python3: 0 < SC_AVPHYS_PAGES <= SC_PHYS_PAGES" True "$(cat "$T/av.out")"

# ps (procps reads /proc/<pid>/stat) on a sleeping, a spinning and a stopped process.
rung do -- sh -c '
	sleep 60 & s=$!
	sh -c "while :; do :; done" & r=$!
	sleep 60 & t=$!
	kill -STOP $t
	# A zombie: the child of a shell that then became a sleep, which never reaps.
	sh -c "sleep 0.1 & exec sleep 60" & z=$!
	# Until the loop has had a second of CPU (20 s at most: the host may be busy).
	for i in $(seq 40); do
		[ "$(ps -o cputimes= -p $r)" -ge 1 ] && break
		sleep 0.5
	done
	ps -o pid=,stat=,cputimes= -p $s,$r,$t | while read -r pid stat cpu; do
		case $pid in $s) echo "sleeping $stat $cpu" ;; $r) echo "spinning $stat $cpu" ;; $t) echo "stopped $stat $cpu" ;; esac
	done
	ps -o stat=,comm= --ppid $z | sed "s/^/dead /"
	kill -9 $s $r $t $z' </dev/null >"$T/ps.out" 2>"$T/ps.err"
check_that "ps: sleep is S" 'grep -Eq "^sleeping S" "$T/ps.out"'
check_that "ps: a busy loop is R, with CPU time" \
	'grep -Eq "^spinning R" "$T/ps.out" && awk '"'"'$1 == "spinning" { exit !($3 >= 1) }'"'"' "$T/ps.out"'
check_that "ps: a stopped process is T" 'grep -Eq "^stopped T" "$T/ps.out"'
check_that "ps: a dead, unreaped child is Z" 'grep -Eq "^dead Z +sleep" "$T/ps.out"'
[ -s "$T/ps.err" ] && sed 's/^/# ps: /' "$T/ps.err" | head -5
[ -s "$T/ps.out" ] && sed 's/^/# ps: /' "$T/ps.out"

rung do -- sh -c 'cat /proc/sys/kernel/version; uname -v' </dev/null >"$T/ver.out" 2>&1
check_that "/proc/sys/kernel/version is uname -v" \
	'[ "$(sed -n 1p "$T/ver.out")" = "$(sed -n 2p "$T/ver.out")" ] && [ -n "$(sed -n 1p "$T/ver.out")" ]'
check_clean "the /proc and sysinfo programs"
