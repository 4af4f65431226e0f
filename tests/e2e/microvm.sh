#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; $vars are for the guest's sh (check_that expands and uses them later)
# The VM levels (--isolation=microvm, the dev.rung.isolation annotation):
# a real Linux guest under QEMU, with the sentry's stdio, exit-status,
# exec, kill and delete behaviour. Without KVM this runs under TCG (the
# tests allow emulation), where a boot takes seconds: few VMs boot here,
# each checked for several things, and the boot times are printed.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
N=34
plan $N
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/vmlib.sh"
vm_require
diag "$(cat "$T/setup")"
if [ -e /dev/vhost-vsock ]; then
	check_that "setup-vm: vsock reported as this host has it" 'contains "$T/setup" "^vsock: +/dev/vhost-vsock works"'
else
	check_that "setup-vm: vsock reported unavailable, naming /dev/vhost-vsock" 'contains "$T/setup" "^vsock: +unavailable: no /dev/vhost-vsock"'
fi

# A rootfs of busybox alone.
R=$T/rootfs
vm_rootfs "$R" sh cat echo ls sleep printf kill hostname md5sum head stty

# --- rung do ---------------------------------------------------------------------------
# stdin is 1 MiB of random bytes: cat must give them back unchanged (binary
# clean, and it must see EOF to end); stderr stays apart; a fake exit line
# on stdout changes nothing.
head -c 1048576 /dev/urandom >"$T/in.bin"
t0=$(now)
rung do --isolation=microvm --rootfs "$R" -- sh -c 'cat; echo to-stderr >&2; echo "EXIT 0"; echo "SBX_EXIT=0" >&2; exit 7' \
	<"$T/in.bin" >"$T/out.bin" 2>"$T/err"
st=$?
diag "rung do (boot, 1 MiB through cat, exit): $(since "$t0") s"
check_eq "do: the exit status comes back (7), not a fake one printed" 7 "$st"
head -c 1048576 "$T/out.bin" >"$T/out.head"
check "do: 1 MiB of stdin comes back through cat byte for byte" cmp -s "$T/in.bin" "$T/out.head"
check_eq "do: stdout ends with what the process printed after cat" "EXIT 0" "$(tail -c +1048577 "$T/out.bin")"
check_that "do: stderr is separate" 'contains "$T/err" "^to-stderr$" && ! contains "$T/out.bin" to-stderr'
check_that "do: TCG is used only with a warning" 'contains "$T/err" "TCG emulation" || ! contains "$T/setup" "TCG"'

# A file written in the guest (--overlay none) is on the host's rootfs,
# one written in a -v volume in its host directory; a signal's death is
# 128 + signal (and rung, which frees the volumes at exit, does not crash).
t0=$(now)
# QEMU runs as nobody with four file capabilities (qemu_privs.h): the
# guest's root still writes into root's directories of the share and
# gives files any owner and mode, but cannot make device nodes there.
mkdir -p "$T/vol"
out=$(rung do --isolation=microvm --rootfs "$R" --overlay none -v "$T/vol:/mnt/vol" -- sh -c 'echo from-the-guest >/tmp/written; echo in-the-volume >/mnt/vol/v; mkdir /etc/d; echo x >/etc/d/owned; chown 1234:5678 /etc/d/owned; chmod 4750 /etc/d/owned; mknod /tmp/null c 1 3 2>/dev/null || echo mknod-refused; hostname; kill -9 $$' 2>/dev/null)
st=$?
diag "rung do (boot, write, kill -9): $(since "$t0") s"
check_eq "do: a process killed by SIGKILL ends rung with 137" 137 "$st"
check_eq "do: the guest's hostname is rung; a device node cannot be made in the share" "mknod-refused
rung" "$out"
check_eq "do: a file written in the guest is in the rootfs on the host" from-the-guest "$(cat "$R/tmp/written" 2>/dev/null)"
check_eq "do: -v: a file written in the volume is in the host directory" in-the-volume "$(cat "$T/vol/v" 2>/dev/null)"
check_eq "do: one made in root's /etc and given to 1234:5678, mode 4750, is so on the host" \
	"1234:5678 4750" "$(stat -c '%u:%g %a' "$R/etc/d/owned" 2>/dev/null)"

# --- --isolation=auto --------------------------------------------------------------------
# fanotify needs a real kernel: under auto the first run is the sentry's,
# which records the unsupported calls; the next run of the same workload
# moves to the microVM level by itself.
cp "$E2E_BIN/kernel_only" "$R/bin/kernel_only"
A="--root $T/auto"
out=$(rung $A --isolation=auto do --rootfs "$R" -- /bin/kernel_only 2>"$T/auto1.err")
check_that "auto: the first run is the sentry's, where fanotify_init is unsupported" '[ "$out" = "fanotify: Function not implemented" ]'
rung $A compat >"$T/compat"
check_that "rung compat shows the record: fanotify_init made it a microvm workload" 'contains "$T/compat" "microvm .*/bin/kernel_only: .*fanotify_init"'
t0=$(now)
out=$(rung $A --isolation=auto --debug do --rootfs "$R" -- /bin/kernel_only 2>"$T/auto2.err")
diag "rung do under auto, moved to the microVM level: $(since "$t0") s"
check_that "auto: the next run moves to the microVM level and works" '[ "$out" = "fanotify ok" ] && contains "$T/auto2.err" "auto chose microvm"'

# --- the OCI commands --------------------------------------------------------------------
# bundle DIR ARGS: a bundle on $R whose annotation asks for the microVM
# level; ARGS is the JSON array of the init's arguments.
bundle() {
	mkdir -p "$1"
	cat >"$1/config.json" <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": {"uid": 0, "gid": 0},
		"args": $2,
		"env": ["PATH=/bin", "HOME=/"],
		"cwd": "/",
		"capabilities": {"bounding": ["CAP_KILL", "CAP_CHOWN", "CAP_DAC_OVERRIDE"]},
		"rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}]
	},
	"root": {"path": "$R", "readonly": false},
	"hostname": "vmtest",
	"mounts": [
		{"destination": "/proc", "type": "proc", "source": "proc"},
		{"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
		{"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
		{"destination": "/etc/marker", "type": "bind", "source": "$T/marker", "options": ["rbind", "ro"]}
	],
	"annotations": {"dev.rung.isolation": "microvm"},
	"linux": {"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "mount"}, {"type": "ipc"}, {"type": "uts"}],
		"cgroupsPath": "$E2E_CGROUP/$(basename "$1")"}
}
JSON
}
echo bind-mounted-file >"$T/marker"
S="--root $T/state"
# c1 runs; c2 is only created, then deleted by force. Both boot at once.
bundle "$T/c1" '["sh", "-c", "trap \"echo got-term; exit 9\" TERM; echo started; while :; do sleep 1; done"]'
bundle "$T/c2" '["sh", "-c", "while :; do :; done"]'
t0=$(now)
rung $S create --bundle "$T/c2" c2 >"$T/c2.out" 2>&1 &
c2=$!
rung $S create --bundle "$T/c1" c1 >"$T/c1.out" 2>"$T/c1.err"
check_eq "create at the microvm level (annotation) succeeds" 0 $?
diag "two creates at once (two boots): $(since "$t0") s"
wait $c2
check_that "state says created" '"$RUNG" $S state c1 | grep -q "\"status\": \"created\""'
rung $S start c1
st=$?
check_that "start: the init runs" '[ $st = 0 ] && "$RUNG" $S state c1 | grep -q "\"status\": \"running\""'
qemu=$(pgrep -f "qemu-system.*$T/state/c1" | head -n 1)
check_that "QEMU runs as nobody with CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER and CAP_FSETID alone" \
	'grep -Eq "^Uid:\s+65534\s+65534\s+65534\s+65534$" /proc/$qemu/status &&
	 grep -Eq "^CapEff:\s+0+1b$" /proc/$qemu/status && grep -Eq "^CapBnd:\s+0+1b$" /proc/$qemu/status &&
	 grep -Eq "^NoNewPrivs:\s+1$" /proc/$qemu/status'

t0=$(now)
out=$(printf 'from-stdin' | rung $S exec c1 sh -c 'cat; echo; hostname; cat /etc/marker; echo exec-file >/tmp/exec; exit 5')
st=$?
diag "exec into the running VM: $(since "$t0") s"
check_eq "exec: its exit status" 5 "$st"
check_eq "exec: stdin, stdout, the spec's hostname, a bind-mounted file" "from-stdin
vmtest
bind-mounted-file" "$out"
check_eq "exec: a file it writes is on the host" exec-file "$(cat "$R/tmp/exec" 2>/dev/null)"
# exec -t: the console socket gets a pty's master; the process has a
# terminal of the container's /dev/pts, and a resize of the master (the
# shim's, through the exec proxy's SIGWINCH) reaches the guest's pty.
"$E2E_BIN/recvtty" "$T/console.sock" "$T/console.screen" resize "waiting for SIGWINCH" 30 90 >"$T/console.recv" 2>&1 &
reader=$!
i=0
while [ ! -S "$T/console.sock" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
rung $S exec -t --console-socket "$T/console.sock" c1 sh -c 'tty; trap "stty size; exit 3" WINCH; echo waiting for SIGWINCH; while :; do sleep 1; done'
st=$?
wait $reader
tr -d '\r' <"$T/console.screen" >"$T/console.out"
check_that "exec -t: a terminal of the container's /dev/pts, the exit status" '[ $st = 3 ] && contains "$T/console.out" "^/dev/pts/[0-9]+$"'
check_that "exec -t: a resize of the console's master reaches the guest's pty (30 90)" 'contains "$T/console.out" "^30 90$"'
rung $S pause c1
check_that "pause freezes the VM (state paused)" '"$RUNG" $S state c1 | grep -q "\"status\": \"paused\""'
rung $S resume c1
check_that "resume (state running)" '"$RUNG" $S state c1 | grep -q "\"status\": \"running\""'
rung $S exec c1 no-such-program 2>"$T/err"
st=$?
check_that "exec of a missing program fails as runc's does" '[ $st != 0 ] && contains "$T/err" "executable file not found"'
pid=$("$RUNG" $S state c1 | sed -n 's/.*"pid": \([0-9]*\).*/\1/p')
rung $S kill c1 TERM
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "kill TERM: the init's trap ran and the container stopped" 'contains "$T/c1.out" got-term && "$RUNG" $S state c1 | grep -q "\"status\": \"stopped\""'
rung $S delete c1
check_eq "delete of the stopped container" 0 $?

rung $S delete --force c2
check_eq "delete --force of a created VM whose guest never exits" 0 $?
check_that "no state is left" '[ -z "$(ls "$T/state")" ]'

# Level 5 is refused at create, naming what the host lacks; rung check
# lists every level.
bundle "$T/c3" '["true"]'
rung $S --isolation=confidential create --bundle "$T/c3" c3 2>"$T/c3.err"
st=$?
check_that "--isolation=confidential: refused at create with what is missing, no state left" \
	'[ $st != 0 ] && contains "$T/c3.err" "level 5 unsupported on this host: ." && [ -z "$(ls "$T/state")" ]'
rung check >"$T/check"
check_that "rung check: levels 2 to 5, each with a status" \
	'[ "$(grep -Ec "^[2-5] +(sentry|microvm|vm|confidential) +(usable|emulated|unusable) " "$T/check")" = 4 ]'

# No QEMU of ours may be left: each one's command line names its run directory.
vm_check_gone "no QEMU process is left" "qemu-system.*$T"
# Every rung process of this test names $T in its arguments: this is
# lib.sh's check_clean scoped to it (parallel OCI tests' sandboxes lead
# sessions of their own, which check_clean would count).
ours_left() {
	ps -eo args= | grep -F "$T" | grep -v grep
	ps -eo ppid=,stat=,pid= | awk -v p=$$ '$1 == p && $2 ~ /^Z/'
}
i=0
while [ -n "$(ours_left)" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "no rung process or zombie of this test is left" '[ -z "$(ours_left)" ]'
