#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; $vars are for the guest's sh (check_that expands and uses them later)
# Terminals at the VM levels. `rung do` on a terminal (script(1)'s pty,
# typed at through a fifo) gives the program a pty of the guest's: the
# guest's line discipline echoes once, turns ^C into SIGINT, and a resize
# of rung's terminal reaches the guest as its pty's new size and SIGWINCH.
# A container's terminal (the console socket's pty, process.terminal)
# takes a resize of its master the same way, as Docker's shim does it.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
N=7
plan $N
RECVTTY=$E2E_BIN/recvtty
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/vmlib.sh"
script --version 2>/dev/null | grep -q util-linux || skip_all "no script(1) from util-linux (apt-get install bsdutils)"
vm_require
trap '' PIPE # typing at a script(1) that is gone fails a check, not the test

R=$T/rootfs
vm_rootfs "$R" sh cat echo sleep stty tty

# screen FILE ERE: wait (up to 120 s: a boot under TCG) for a line of FILE,
# carriage returns dropped, that matches ERE.
screen() {
	i=0
	while [ $i -lt 1200 ]; do
		tr -d '\r' 2>/dev/null <"$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# --- rung do on a terminal ------------------------------------------------------------
# script runs $SHELL -c LINE: exec, so that no shell sits between it and rung.
mkfifo "$T/in"
(
	SHELL=/bin/sh timeout -k 5 "$E2E_TIMEOUT" script -qefc "exec $RUNG do --isolation=microvm --rootfs $R -- sh -c 'tty; echo ready; read line; echo \"got:\$line\"; trap \"echo got-int\" INT; trap \"stty size; exit 3\" WINCH; echo waiting; while :; do sleep 1; done'" /dev/null \
		<"$T/in" >"$T/do.out" 2>&1
	echo $? >"$T/do.st"
) &
sub=$!
exec 3>"$T/in"
screen "$T/do.out" '^ready$'
printf 'typed\n' >&3
check_that "do on a terminal: the program's is a pty of the guest, which echoes what is typed once" \
	'screen "$T/do.out" "^got:typed$" && tr -d "\r" <"$T/do.out" | grep -q "^/dev/pts/[0-9]*$" &&
	 [ "$(tr -d "\r" <"$T/do.out" | grep -c "^typed$")" = 1 ]'
screen "$T/do.out" '^waiting$'
printf '\003' >&3
check_that "^C is a SIGINT for the guest's foreground process, not for rung" \
	'screen "$T/do.out" "^(\^C)?got-int$"'
# rung's terminal is the pty script made: resized from outside, as a
# terminal emulator would.
pts=
for p in $(pgrep -f "rootfs $R --"); do
	[ "$(ps -o comm= -p "$p")" = rung ] && pts=$(readlink "/proc/$p/fd/0")
done
stty -F "$pts" rows 33 cols 77
wait $sub
exec 3>&-
check_that "a resize of rung's terminal: the guest's pty takes the size (SIGWINCH there), exit status 3" \
	'tr -d "\r" <"$T/do.out" | grep -q "^33 77$" && [ "$(cat "$T/do.st")" = 3 ]'
diag "rung's terminal $pts, exit status $(cat "$T/do.st")"
diag "$(tr -d '\r' <"$T/do.out" | grep -v warning)"

# --- a container's terminal: the console socket --------------------------------------------
mkdir -p "$T/c"
cat >"$T/c/config.json" <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": true,
		"consoleSize": {"height": 24, "width": 80},
		"user": {"uid": 0, "gid": 0},
		"args": ["sh", "-c", "tty; stty size; trap 'stty size; exit 0' WINCH; echo waiting for SIGWINCH; while :; do sleep 1; done"],
		"env": ["PATH=/bin"],
		"cwd": "/"
	},
	"root": {"path": "$R", "readonly": false},
	"mounts": [
		{"destination": "/proc", "type": "proc", "source": "proc"},
		{"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
		{"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]}
	],
	"annotations": {"dev.rung.isolation": "microvm"},
	"linux": {"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "mount"}],
		"cgroupsPath": "$E2E_CGROUP/vm"}
}
JSON
S="--root $T/state"
"$RECVTTY" "$T/tty.sock" "$T/tty.screen" resize "waiting for SIGWINCH" 40 100 >"$T/tty.recv" 2>&1 &
recv=$!
i=0
while [ ! -S "$T/tty.sock" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
rung $S create --bundle "$T/c" --console-socket "$T/tty.sock" ct >"$T/create.out" 2>&1
check_eq "create with a console socket" 0 $?
rung $S start ct
i=0
while ! "$RUNG" $S state ct 2>/dev/null | grep -q '"status": "stopped"' && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
wait $recv
tr -d '\r' <"$T/tty.screen" >"$T/tty.text"
diag "$(cat "$T/tty.text")"
check_that "the init's terminal is a pty of the guest, sized by consoleSize (24 80)" \
	'contains "$T/tty.text" "^/dev/pts/[0-9]+$" && contains "$T/tty.text" "^24 80$"'
check_that "a resize on the console's master (the shim's) reaches the guest's pty: 40 100" \
	'contains "$T/tty.text" "^40 100$"'
rung $S delete ct
vm_check_gone "no QEMU process is left" "qemu-system.*$T"
