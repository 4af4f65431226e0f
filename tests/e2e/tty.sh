#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; check_that expands later
# rung do on a terminal: script(1) gives it a real host pty, whose input
# this test types through a fifo. ^C must reach the guest's foreground job
# (a child that took the terminal with tcsetpgrp, a shell's child) and not
# end rung; under a job-control shell ^Z stops rung with its guest; the
# guest sees the terminal as /dev/console and /dev/tty and can set its
# size. script(1) runs in the sandbox on the sandbox's own ptys.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
plan 17
T=$E2E_TMP
TTYFG=$E2E_BIN/ttyfg
trap '' PIPE # typing at a script(1) that is gone fails the check, not the test

if ! script --version 2>/dev/null | grep -q util-linux; then
	i=0
	while [ $i -lt 16 ]; do
		skip "no script(1) from util-linux (apt-get install bsdutils)"
		i=$((i + 1))
	done
	check_clean "the terminal tests"
	exit 0
fi

# start NAME COMMAND: run the shell command line COMMAND under script(1) on
# a new pty, typed at from fd 3 (a fifo); its output goes to $T/NAME.out.
# script runs $SHELL -c COMMAND; COMMAND is exec'd so that no shell (dash
# does not exec a lone command by itself) shares the foreground group and
# dies of the ^C meant for rung.
start() {
	name=$1
	shift
	rm -f "$T/$name.in"
	mkfifo "$T/$name.in"
	(
		SHELL=/bin/sh timeout -k 5 "$E2E_TIMEOUT" script -qefc "exec $*" /dev/null <"$T/$name.in" \
			>"$T/$name.out" 2>&1
		echo $? >"$T/$name.st"
	) &
	script_pid=$!
	exec 3>"$T/$name.in"
}
# seen NAME ERE: wait (up to 20 s) until NAME's output has a line matching ERE.
seen() {
	i=0
	while [ $i -lt 200 ]; do
		tr -d '\r' 2>/dev/null <"$T/$1.out" | grep -Eq -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# finish NAME: wait for script to end; $st is rung's exit status, $out its
# output without carriage returns.
finish() {
	wait "$script_pid"
	exec 3>&-
	st=$(cat "$T/$1.st")
	out=$(tr -d '\r' <"$T/$1.out")
}
# run NAME COMMAND: the same without typing anything.
run() {
	start "$@"
	finish "$1"
}

# ^C reaches the guest's foreground job, not its background parent nor rung.
start fg "$RUNG do $TTYFG"
seen fg '^child ready' || diag "ttyfg never got ready: $(cat "$T/fg.out")"
printf '\003' >&3
finish fg
check_that "the guest's program is in the terminal's foreground group" \
	'echo "$out" | grep -q "pgrp is the foreground: yes"'
check_that "^C reaches the child the guest put in the foreground" \
	'echo "$out" | grep -q "child got SIGINT: yes"'
check_that "not its parent, in the background" \
	'echo "$out" | grep -q "parent got SIGINT: no"'
check_eq "rung goes on and exits with the guest's status" 0 "$st"

start sh "$RUNG do sh -c 'trap \"echo shell got INT\" INT; echo ready; sleep 10; echo after sleep'"
seen sh '^ready' && sleep 0.5
printf '\003' >&3
finish sh
check_that "^C kills a shell's child and the shell's trap runs" \
	'echo "$out" | grep -q "shell got INT" && echo "$out" | grep -q "after sleep"'
check_eq "the shell goes on and exits 0" 0 "$st"

start sleep "$RUNG do sh -c 'echo ready; exec sleep 30'"
seen sleep '^ready' && sleep 0.5
printf '\003' >&3
finish sleep
check_eq "^C ends a program that does not catch it: 128 + SIGINT" 130 "$st"

# Under a job-control shell (sh -m), ^Z stops the guest's init and rung
# with it, as a native job stops; fg continues both.
start jc "sh -c 'set -m; $RUNG do sh -c \"echo ready; sleep 2; echo done\"; echo stopped \$?; fg >/dev/null; echo fg \$?'"
seen jc '^ready' && sleep 0.5
printf '\032' >&3
finish jc
check_that "^Z stops rung with its guest: the shell sees a job stopped by SIGTSTP" \
	'echo "$out" | grep -q "stopped 148$"'
check_that "fg continues rung and the guest, which finishes" \
	'echo "$out" | grep -q "^done" && echo "$out" | grep -q "^fg 0"'

# How the guest sees the terminal.
run name "$RUNG do sh -c 'tty; tty </dev/tty; ls -l /proc/self/fd/1'"
check_that "the guest's stdio is /dev/console" \
	'[ "$(echo "$out" | sed -n 1p)" = /dev/console ]'
check_that "/dev/tty opens its controlling terminal" \
	'[ "$(echo "$out" | sed -n 2p)" = /dev/tty ]'
check_that "/proc/self/fd names the console" 'echo "$out" | grep -q -- "-> /dev/console"'
run size "$RUNG do sh -c 'stty rows 33 cols 77; stty size'"
check_eq "the guest sets the terminal's size" "33 77" "$out"
run ps "$RUNG do ps -o tty=,comm="
check_eq "ps sees the controlling terminal" "console ps" "$(echo "$out" | tr -s ' ')"

# script(1) inside: the sandbox's own ptys (poll, signalfd, TIOCGPTPEER,
# TIOCSCTTY), as natively.
rung do script -qc tty /dev/null </dev/null >"$T/inner.out" 2>&1
st=$?
check_that "script -c tty runs in the sandbox on /dev/pts/0" \
	'[ "$st" = 0 ] && [ "$(tr -d "\r" <"$T/inner.out")" = /dev/pts/0 ]'
script -qc 'stty -a' /dev/null </dev/null >"$T/stty.native" 2>&1
rung do script -qc 'stty -a' /dev/null </dev/null >"$T/stty.out" 2>&1
st=$?
check_that "script -c 'stty -a' prints what it prints natively" \
	'[ "$st" = 0 ] && cmp -s "$T/stty.native" "$T/stty.out"'

check_clean "the terminal tests"
