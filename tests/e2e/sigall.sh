#!/bin/sh
# shellcheck disable=SC1010 # `do` is rung's subcommand
# kill(-1) in the sandbox, as Linux's kill_something_info has it
# (tests/e2e/sigall.c): it spares the caller and the sandbox's init (pid
# 1), reaches every other process (zombies included), returns 0 when there
# was any, whether permitted or not, and ESRCH when there was none.
# kill(-1) natively would reach the host's processes: sigall runs under
# `rung do` only, and refuses to run unless it is pid 1.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
PROG=$E2E_BIN/sigall
platforms=$("$RUNG" help platforms | awk '$2 == "usable" { print $1 }')
plan $(($(echo "$platforms" | wc -w) + 1))

if [ ! -x "$PROG" ]; then
	for _ in $platforms; do skip "no $PROG (make check builds it)"; done
	check_clean "nothing"
	exit 0
fi

# What Linux 6.1 answers (kernel/signal.c), line by line.
{
	echo "init alone: kill(-1, 0) = ESRCH"
	echo "init alone: kill(-1, 65) = ESRCH"
	echo "kill(INT_MIN, 0) = ESRCH"
	echo "kill(0, 0) = 0"
	echo "a child beside init alone: kill(-1, 0) = ESRCH"
	echo "init, beside two others: kill(-1, 65) = EINVAL"
	echo "kill(-1, SIGTERM) = 0"
	echo "the caller took it: no"
	echo "the others: SIGTERM, SIGTERM"
	echo "init took it: no"
	# The guest is root (the caller's credentials); as nobody, nobody is
	# signalled, yet kill(-1) returns 0.
	if [ "$(id -u)" = 0 ]; then
		echo "as nobody, kill(-1, SIGTERM) = 0"
		echo "as nobody, kill(-pgid of root's, SIGTERM) = EPERM"
		echo "the others: SIGKILL, SIGKILL"
	fi
	echo "beside a zombie only: kill(-1, 0) = 0"
	echo "once it is reaped: kill(-1, 0) = ESRCH"
	echo "init took a signal at all: no"
} >"$E2E_TMP/want"

for p in $platforms; do
	rung do --platform "$p" -- "$PROG" </dev/null >"$E2E_TMP/$p.out" 2>"$E2E_TMP/$p.err"
	st=$?
	if [ "$st" = 0 ] && cmp -s "$E2E_TMP/want" "$E2E_TMP/$p.out"; then
		ok "$p: kill(-1) spares the caller and init, reaches the others, returns as Linux"
	else
		not_ok "$p: kill(-1) spares the caller and init, reaches the others, returns as Linux (status $st)"
		diag "$(diff "$E2E_TMP/want" "$E2E_TMP/$p.out")" "$(head -5 "$E2E_TMP/$p.err")"
	fi
done
check_clean "kill(-1) in the sandbox"
