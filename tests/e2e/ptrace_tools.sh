#!/bin/sh
# shellcheck disable=SC1010 # `do` is rung's subcommand
# ptrace between guests: strace -f and gdb -batch on a small program that
# forks and execs, natively and in `rung do` on each platform. The
# important lines must be the same: strace's system calls (numbers and
# addresses masked), gdb's breakpoint hits and backtraces (function names,
# files and lines) and the program's own output.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
PROG=$E2E_BIN/ptrace_prog
PLATFORMS="systrap ptrace"
plan 9

if [ ! -x "$PROG" ]; then
	skip_all "no $PROG"
fi

# What strace saw that does not depend on timing or addresses: each chosen
# call's name (execve with its program, write with its data), and the
# exits. A call another process's interrupts is cut in two
# (unfinished/resumed) or not, so only its first half counts.
strace_lines() {
	sed -e 's/^\[pid *[0-9]*\] //' -e 's/^[0-9][0-9]* *//' "$1" |
		grep -E '^(execve|clone|clone3|fork|vfork|wait4|exit_group|write)\(|^\+\+\+ exited' |
		sed -E -e 's/^(execve\("[^"]*").*/\1/;t' -e 's/^(write\([0-9]+, "[^"]*").*/\1/;t' \
			-e 's/^([a-z0-9_]+)\(.*/\1/' | sort
}

# gdb's breakpoint and backtrace lines, addresses and pids masked.
gdb_lines() {
	grep -E '^(Breakpoint [0-9]+, |#[0-9]+ |\[Inferior )|= ' "$1" |
		sed -e 's/0x[0-9a-f]* in //' -e 's/process [0-9]*/process N/'
}

# same_lines WHAT NATIVE RUNG: ok when the extracted lines match.
same_lines() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff "$2" "$3" | sed 's/^/# /' | head -20
	fi
}

if command -v strace >/dev/null 2>&1; then
	env -i PATH=/usr/bin:/bin strace -f -o "$T/n.strace" "$PROG" >"$T/n.out" 2>&1
	strace_lines "$T/n.strace" >"$T/n.sl"
	env -i PATH=/usr/bin:/bin strace -f "$PROG" >/dev/null 2>"$T/n2.strace"
	strace_lines "$T/n2.strace" >"$T/n2.sl"
	for p in $PLATFORMS; do
		env -i PATH=/usr/bin:/bin timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --platform="$p" -- \
			sh -c "strace -f -o /tmp/out $PROG && cat /tmp/out >&2" \
			>"$T/r.out" 2>"$T/r.strace"
		strace_lines "$T/r.strace" >"$T/r.sl"
		same_lines "$p: strace -f -o: the same system calls" "$T/n.sl" "$T/r.sl"
		check "$p: strace -f -o: the program's output" cmp -s "$T/n.out" "$T/r.out"
		env -i PATH=/usr/bin:/bin timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --platform="$p" -- \
			strace -f "$PROG" >"$T/r2.out" 2>"$T/r2.strace"
		strace_lines "$T/r2.strace" >"$T/r2.sl"
		same_lines "$p: strace -f: the same system calls" "$T/n2.sl" "$T/r2.sl"
	done
else
	for p in $PLATFORMS; do
		skip "$p: no strace"
		skip "$p: no strace"
		skip "$p: no strace"
	done
fi

GDB_ARGS="-nx -batch -ex 'break main' -ex run -ex bt -ex 'break inner' -ex continue -ex bt -ex continue"
if command -v gdb >/dev/null 2>&1; then
	env -i PATH=/usr/bin:/bin HOME="$T" sh -c "gdb $GDB_ARGS $PROG" >"$T/n.gdb" 2>&1 </dev/null
	gdb_lines "$T/n.gdb" >"$T/n.gl"
	for p in $PLATFORMS; do
		env -i PATH=/usr/bin:/bin HOME=/tmp timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do \
			--platform="$p" -- sh -c "gdb $GDB_ARGS $PROG" >"$T/r.gdb" 2>&1 </dev/null
		gdb_lines "$T/r.gdb" >"$T/r.gl"
		same_lines "$p: gdb break main, run, bt, break inner, continue, bt" "$T/n.gl" \
			"$T/r.gl"
	done
else
	for p in $PLATFORMS; do
		skip "$p: no gdb"
	done
fi
check_clean "strace and gdb"
