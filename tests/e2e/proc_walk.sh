#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; sh -c expands later
# A walk of the sandbox's /proc ends: a thread's directory,
# /proc/<pid>/task/<tid>, has no task directory in it (as in Linux), so a
# walk does not descend forever (find stopped at the loop only because the
# nested directories had the same inode numbers). The guest side is
# tests/guest/proc_task_dir.c.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
plan 4

rung do -- find /proc -maxdepth 6 </dev/null >"$T/bounded.out" 2>"$T/bounded.err"
st=$?
count=$(wc -l <"$T/bounded.out")
check_that "find /proc -maxdepth 6 ends ($count entries, status $st), with no task/<tid>/task" \
	'[ "$st" = 0 ] && [ "$count" -gt 50 ] && ! grep -q "/task/[0-9]*/task" "$T/bounded.out"'
rung do -- find /proc </dev/null >"$T/all.out" 2>"$T/all.err"
st=$?
check_that "find /proc, without a depth limit, ends ($(wc -l <"$T/all.out") entries, status $st)" \
	'[ "$st" = 0 ]'
check_that "no thread directory holds a task directory" \
	'grep -q "^/proc/1/task/1/fd$" "$T/all.out" && ! grep -q "/task/[0-9]*/task" "$T/all.out"'
check_clean "the walks of /proc"
