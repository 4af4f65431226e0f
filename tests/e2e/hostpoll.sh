#!/bin/sh
# shellcheck disable=SC1010 # `do` is rung's subcommand
# Waiting on a host descriptor: tests/e2e/hostpoll.c reads its stdin, a
# host pipe (a fifo here), with poll, select and epoll, and this script
# writes a line only once the program says it is ready, so that each call
# really waits for the host. Natively and in the sandbox the output must
# be the same.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
PROG=$E2E_BIN/hostpoll
plan 4

if [ ! -x "$PROG" ]; then
	for _ in $(seq 4); do skip "no $PROG (make check builds it)"; done
	exit 0
fi

# wait_for FILE TEXT: until FILE has the line TEXT (10 s at most).
wait_for() {
	i=0
	while ! grep -qx -- "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# drive NAME COMMAND...: run COMMAND with stdin from a fifo fed line by line.
drive() {
	out=$E2E_TMP/$1.out
	fifo=$E2E_TMP/$1.fifo
	shift
	mkfifo "$fifo"
	"$@" <"$fifo" >"$out" 2>"$out.err" &
	pid=$!
	exec 3>"$fifo"
	for step in 1 2 3; do
		wait_for "$out" "ready $step"
		echo "line $step" >&3
	done
	wait_for "$out" "ready 4"
	exec 3>&-
	wait $pid
}

drive native "$PROG"
st_native=$?
drive rung rung do -- "$PROG"
st_rung=$?
check_eq "the native run exits 0" 0 "$st_native"
check_eq "the sandboxed run exits 0" 0 "$st_rung"
if cmp -s "$E2E_TMP/native.out" "$E2E_TMP/rung.out"; then
	ok "poll, select and epoll wait for a host pipe as natively"
else
	not_ok "poll, select and epoll wait for a host pipe as natively"
	diag "$(diff "$E2E_TMP/native.out" "$E2E_TMP/rung.out")" "$(head -5 "$E2E_TMP/rung.out.err")"
fi
check_clean "the host poll runs"
