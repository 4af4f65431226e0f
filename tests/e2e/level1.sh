#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# Isolation level 1 (--isolation=container): OCI bundles on a busybox
# rootfs run as plain namespaces + cgroups + seccomp containers through
# rung's own CLI (run, create, start, state, exec, ps, kill, pause, resume,
# delete), and rung do --isolation=container. Each check looks at what the
# container's process really sees (its /proc, its ids, its mounts) or at the
# host (the state directory, the cgroup, the host's mounts and processes).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
BB=/bin/busybox
N=71
plan $N

[ "$(id -u)" = 0 ] || skip_all "level 1 needs root"
if [ ! -x "$BB" ] || ! file -L "$BB" 2>/dev/null | grep -q 'statically linked'; then
	skip_all "no static $BB for the test rootfs"
fi
[ -d /sys/fs/cgroup/pids ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	skip_all "no cgroup file system"

# --- the rootfs and bundles -----------------------------------------------------------
ROOTFS=$T/rootfs
mkdir -p "$ROOTFS/bin" "$ROOTFS/proc" "$ROOTFS/dev" "$ROOTFS/sys" "$ROOTFS/tmp" \
	"$ROOTFS/etc" "$ROOTFS/vol"
cp "$BB" "$ROOTFS/bin/busybox"
for c in $("$BB" --list); do
	[ "$c" = busybox ] || ln -s busybox "$ROOTFS/bin/$c"
done
echo 'rootfs hosts' >"$ROOTFS/etc/hosts"
STATE=$T/state
ID=l1-$$
# The containers here keep rung's default cgroup, /rung/ID (one check is of
# that): the /rung parents that this test makes, it removes at the end.
rung_cg() { ls -d /sys/fs/cgroup/rung /sys/fs/cgroup/*/rung 2>/dev/null; }
rung_cg_before=" $(rung_cg | tr '\n' ' ') "

NSDEF='{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}'
CAPS='"CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FSETID","CAP_FOWNER","CAP_MKNOD","CAP_NET_RAW",
"CAP_SETGID","CAP_SETUID","CAP_SETFCAP","CAP_SETPCAP","CAP_NET_BIND_SERVICE",
"CAP_SYS_CHROOT","CAP_KILL","CAP_AUDIT_WRITE"'

# bundle NAME ARGS: write $T/NAME/config.json running ARGS (JSON strings,
# comma-separated); these variables add to it (each a JSON fragment that
# starts with a comma): P (process), M (mounts), L (linux), X (top level);
# RO=true makes the root read-only, NS replaces the namespaces.
bundle() {
	mkdir -p "$T/$1"
	cat >"$T/$1/config.json" <<EOF
{
  "ociVersion": "1.0.2",
  "process": {
    "args": [$2],
    "env": ["PATH=/bin", "MARK=$ID"],
    "cwd": "/",
    "capabilities": {"bounding": [$CAPS], "effective": [$CAPS], "permitted": [$CAPS]}
    ${P:-}
  },
  "root": {"path": "$ROOTFS", "readonly": ${RO:-false}},
  "hostname": "level1-host",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
     "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["ro", "nosuid", "noexec", "nodev"]},
    {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=67108864"]},
    {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]}
    ${M:-}
  ],
  "linux": {
    "namespaces": [${NS:-$NSDEF}],
    "maskedPaths": ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
    "readonlyPaths": ["/proc/sys", "/proc/sysrq-trigger", "/proc/bus"]
    ${L:-}
  }
  ${X:-}
}
EOF
}

# run NAME [RUN OPTIONS...]: rung --isolation=container run the bundle NAME
# (as container $ID-NAME); its output in $T/NAME.out and .err, status in $st.
run() {
	name=$1
	shift
	rung --root "$STATE" --isolation=container run "$@" --bundle "$T/$name" "$ID-$name" \
		>"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}
out() { cat "$T/$1.out"; }
R() { rung --root "$STATE" "$@"; }

# --- rung run: the process and what it sees ----------------------------------------------
bundle echo '"echo", "hello from level 1"'
run echo
check_eq "run: echo prints and exits 0" "0 hello from level 1" "$st $(out echo)"

bundle exit3 '"sh", "-c", "exit 3"'
run exit3
check_eq "run: the init's exit status is run's (3)" 3 "$st"

bundle self '"sh", "-c", "echo $$ $(hostname) $(cat /proc/1/comm)"'
run self
check_eq "the process is pid 1 of its pid namespace, with the spec's hostname" \
	"1 level1-host sh" "$(out self)"

bundle netdev '"sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d \" \""'
run netdev
check_eq "a new network namespace: lo alone" lo "$(out netdev)"

bundle fds '"ls", "/proc/self/fd"'
rung --root "$STATE" --isolation=container run --bundle "$T/fds" "$ID-fds" \
	>"$T/fds.out" 2>"$T/fds.err" </dev/null 3>"$T/leak3" 7<"$T/fds/config.json"
check_eq "no host descriptor reaches the process (only 0-2, and ls's own 3)" \
	"0 1 2 3" "$(tr '\n' ' ' <"$T/fds.out" | sed 's/ $//')"
echo 'preserved' >"$T/fd3"
P=',"user": {"uid": 0, "gid": 0, "umask": 63}' \
	bundle preserve '"sh", "-c", "ls /proc/self/fd | tr \"\\n\" \" \"; cat <&3; umask"'
rung --root "$STATE" --isolation=container run --preserve-fds 1 --bundle "$T/preserve" \
	"$ID-preserve" >"$T/preserve.out" 2>"$T/preserve.err" </dev/null 3<"$T/fd3" 4<"$T/fd3"
check_eq "--preserve-fds 1: fd 3 reaches the process, 4 does not; process.user.umask" \
	"0 1 2 3 4 preserved|0077" "$(tr '\n' '|' <"$T/preserve.out" | sed 's/|$//')"

RO=true bundle rofs '"sh", "-c", "touch /newfile 2>/dev/null && echo root-writable; touch /tmp/x && echo tmp-writable"'
run rofs
check_eq "root.readonly: / is read-only, the /tmp tmpfs is not" tmp-writable "$(out rofs)"

mkdir -p "$T/hostdir"
echo 'host file' >"$T/hostdir/f"
echo 'host hosts' >"$T/hosts"
M=",{\"destination\": \"/vol\", \"type\": \"bind\", \"source\": \"$T/hostdir\", \"options\": [\"rbind\", \"ro\"]},
{\"destination\": \"/etc/hosts\", \"type\": \"bind\", \"source\": \"$T/hosts\", \"options\": [\"rbind\", \"rprivate\"]},
{\"destination\": \"/new/dir\", \"type\": \"bind\", \"source\": \"$T/hostdir\", \"options\": [\"bind\"]}" \
	bundle bind '"sh", "-c", "cat /vol/f /etc/hosts /new/dir/f; echo x >/vol/g 2>/dev/null || echo vol-ro; echo y >/new/dir/h"'
run bind
check_eq "bind mounts: a directory (read-only), a file over the image's, a new mount point" \
	"host file|host hosts|host file|vol-ro" "$(out bind | tr '\n' '|' | sed 's/|$//')"
check_eq "... a read-write bind writes through to the host; the image's file is unchanged" \
	"y rootfs hosts" "$(cat "$T/hostdir/h" "$ROOTFS/etc/hosts" | tr '\n' ' ' | sed 's/ $//')"

bundle masked '"sh", "-c", "stat -c %t,%T /proc/timer_list; grep -c . /proc/timer_list; ls /sys/firmware | wc -l; echo 1 >/proc/sys/kernel/domainname 2>/dev/null || echo sys-ro"'
run masked
check_eq "maskedPaths: /dev/null over a file, an empty directory; readonlyPaths read-only" \
	"1,3|0|0|sys-ro" "$(out masked | tr '\n' '|' | sed 's/|$//')"

RO=true bundle mounts '"sh", "-c", "for m in / /proc /dev /dev/pts /dev/shm /dev/mqueue /sys /sys/fs/cgroup/pids /tmp; do awk -v m=$m \"\\$5 == m { print \\$5, \\$6 }\" /proc/self/mountinfo | cut -d, -f1 | tail -n 1; done"'
run mounts
check_eq "the mounts: / read-only, the spec's file systems, the cgroup read-only" \
	"/ ro|/proc rw|/dev rw|/dev/pts rw|/dev/shm rw|/dev/mqueue rw|/sys ro|/sys/fs/cgroup/pids ro|/tmp rw" \
	"$(out mounts | tr '\n' '|' | sed 's/|$//')"
[ "$st" = 0 ] || diag "$(cat "$T/mounts.err")"

L=',"devices": [{"path": "/dev/myfull", "type": "c", "major": 1, "minor": 7, "fileMode": 438}]' \
	bundle devs '"sh", "-c", "echo x >/dev/null && head -c 4 /dev/zero | wc -c; ls /dev | tr \"\\n\" \" \"; echo; (echo x >/dev/myfull) 2>&1 | grep -o \"No space left\"; mknod /dev/mem c 1 1 && head -c 1 /dev/mem 2>&1 >/dev/null | grep -o \"Operation not permitted\""'
run devs
check_eq "/dev: the default devices, linux.devices, the links, devpts, shm, mqueue" \
	"4|fd full mqueue myfull null ptmx pts random shm stderr stdin stdout tty urandom zero |No space left" \
	"$(out devs | sed -n 1,3p | tr '\n' '|' | sed 's/|$//')"
check_eq "the device cgroup: a node for /dev/mem can be made but not opened" \
	"Operation not permitted" "$(out devs | sed -n 4p)"

# --- credentials, limits, seccomp ------------------------------------------------------
P=',"user": {"uid": 1000, "gid": 1000, "additionalGids": [2000, 3000]},
"noNewPrivileges": true, "oomScoreAdj": 500,
"rlimits": [{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200}]' \
	bundle user '"sh", "-c", "id; grep -E \"^(CapEff|CapPrm|NoNewPrivs)\" /proc/self/status | tr -s \"\\t\" \" \"; cat /proc/self/oom_score_adj; ulimit -n; ulimit -Hn"'
run user
check_eq "user, additionalGids; a non-root process has no capabilities; NNP, oomScoreAdj, rlimits" \
	"uid=1000 gid=1000 groups=2000,3000|CapPrm: 0000000000000000|CapEff: 0000000000000000|NoNewPrivs: 1|500|100|200" \
	"$(out user | tr '\n' '|' | sed 's/|$//')"
[ "$st" = 0 ] || diag "$(cat "$T/user.err")"

P=',"capabilities": {"bounding": ["CAP_CHOWN", "CAP_KILL"], "effective": ["CAP_CHOWN", "CAP_KILL"], "permitted": ["CAP_CHOWN", "CAP_KILL"]}' \
	bundle caps '"sh", "-c", "grep -E \"^Cap(Eff|Bnd)\" /proc/self/status | tr -s \"\\t\" \" \"; hostname other 2>/dev/null || echo no-sys-admin"'
run caps
check_eq "capabilities: root's sets are the spec's (chown, kill), nothing else" \
	"CapEff: 0000000000000021|CapBnd: 0000000000000021|no-sys-admin" \
	"$(out caps | tr '\n' '|' | sed 's/|$//')"
[ "$st" = 0 ] || diag "$(cat "$T/caps.err")"

SECCOMP=',"seccomp": {"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
  "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 95},
               {"names": ["no_such_syscall"], "action": "SCMP_ACT_KILL"},
               {"names": ["personality"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 255, "op": "SCMP_CMP_EQ"}]}]}'
L=$SECCOMP bundle seccomp '"sh", "-c", "mkdir /tmp/d 2>&1 | grep -o \"not supported\"; touch /tmp/f && echo touch-ok; grep Seccomp: /proc/self/status | tr -s \"\\t\" \" \""'
run seccomp
check_eq "linux.seccomp: an ERRNO rule fails mkdir with its errno; the rest is allowed; filter mode" \
	"not supported|touch-ok|Seccomp: 2" "$(out seccomp | tr '\n' '|' | sed 's/|$//')"
[ "$st" = 0 ] || diag "$(cat "$T/seccomp.err")"

# Docker's shape: everything refused (EPERM) but an allowlist, clone only
# without namespace flags. Without noNewPrivileges the filter is loaded
# before the credentials change, so the set-up after it must pass it too.
ALLOW='"access","arch_prctl","brk","capget","capset","chdir","close","close_range","dup2","dup3",
"execve","exit","exit_group","faccessat","faccessat2","fcntl","fstat","fstatfs","getcwd",
"getdents64","getegid","geteuid","getgid","getpgrp","getpid","getppid","getrandom","getuid",
"ioctl","lseek","mkdir","mkdirat","mmap","mprotect","munmap","newfstatat","open","openat",
"pipe","pipe2","prctl","pread64","read","readlink","rseq","rt_sigaction","rt_sigprocmask",
"rt_sigreturn","set_robust_list","set_tid_address","setgroups","setresgid","setresuid",
"prlimit64","stat","statx","uname","wait4","write","writev","fork","vfork","umask","chown"'
L=",\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"],
  \"syscalls\": [{\"names\": [$ALLOW], \"action\": \"SCMP_ACT_ALLOW\"},
    {\"names\": [\"clone\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 2114060288, \"op\": \"SCMP_CMP_MASKED_EQ\"}]},
    {\"names\": [\"clone3\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38}]}" \
	bundle dockersec '"sh", "-c", "mkdir /tmp/a && echo mkdir-ok; unshare -m true 2>&1 | grep -o \"not permitted\"; (sleep 0 &) ; wait; echo fork-ok"'
run dockersec
check_eq "a Docker-style allowlist profile: the set-up passes it, the workload runs, unshare is refused" \
	"mkdir-ok|not permitted|fork-ok" "$(out dockersec | tr '\n' '|' | sed 's/|$//')"
[ "$st" = 0 ] || diag "$(cat "$T/dockersec.err")"

L=',"seccomp": {"defaultAction": "SCMP_ACT_FROBNICATE"}' bundle badsec '"true"'
run badsec
check_that "an unknown seccomp action fails create, naming the field ($st)" \
	'[ "$st" != 0 ] && contains "$T/badsec.err" "linux.seccomp.*SCMP_ACT_FROBNICATE"'

L=',"sysctl": {"net.ipv4.ip_unprivileged_port_start": "0", "net.ipv4.ping_group_range": "0 2147483647"}' \
	bundle sysctl '"sh", "-c", "cat /proc/sys/net/ipv4/ip_unprivileged_port_start /proc/sys/net/ipv4/ping_group_range"'
run sysctl
check_eq "linux.sysctl: Docker's network sysctls, in the container's network namespace" \
	"0|0	2147483647" "$(out sysctl | tr '\n' '|' | sed 's/|$//')"
check_that "... while the host's are unchanged" \
	'[ "$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" != 0 ] || [ "$(cat /proc/sys/net/ipv4/ping_group_range)" != "0	2147483647" ]'
L=',"sysctl": {"vm.swappiness": "10"}' bundle badsysctl '"true"'
run badsysctl
check_that "a sysctl outside the container's namespaces is refused, naming it ($st)" \
	'[ "$st" != 0 ] && contains "$T/badsysctl.err" "vm.swappiness.*not in a separate"'

L=',"resources": {"memory": {"limit": 67108864}, "pids": {"limit": 50}}' \
	bundle res '"sh", "-c", "cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max"'
run res
check_eq "linux.resources land in the container's cgroup, which it sees (read-only) as its own" \
	"67108864|50" "$(out res | tr '\n' '|' | sed 's/|$//')"

NS='{"type": "pid"}, {"type": "network"}' bundle nomnt '"true"'
run nomnt
check_that "without a mount namespace, create fails saying so ($st)" \
	'[ "$st" != 0 ] && contains "$T/nomnt.err" "mount namespace"'

bundle missing '"no-such-program"'
run missing
check_that "a missing program fails create with runc's words ($st)" \
	'[ "$st" != 0 ] && contains "$T/missing.err" "exec: \\\"no-such-program\\\": executable file not found in \\\$PATH"'

# --- the terminal (console socket) --------------------------------------------------------
# recv_start NAME: a console-socket receiver at $T/NAME.sock (python3) that
# writes what it got, and then all the pty said, to $T/NAME.got.
HAVE_RECV=
if command -v python3 >/dev/null && python3 -c 'import socket; socket.recv_fds' 2>/dev/null; then
	HAVE_RECV=1
	cat >"$T/recv.py" <<'EOF'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(1)
open(sys.argv[2] + ".ready", "w").close()
c, _ = s.accept()
msg, fds, flags, addr = socket.recv_fds(c, 4096, 1)
out = "fds=%d tty=%s\n" % (len(fds), bool(fds) and os.isatty(fds[0]))
while fds:
    try:
        d = os.read(fds[0], 4096)
    except OSError:
        break
    if not d:
        break
    out += d.decode(errors="replace")
open(sys.argv[2], "w").write(out)
EOF
fi
recv_start() {
	python3 "$T/recv.py" "$T/$1.sock" "$T/$1.got" &
	recv=$!
	i=0
	while [ ! -e "$T/$1.got.ready" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# recv_wait NAME STATUS: wait for the receiver (stopped if the command failed);
# $got: what it got, one line.
recv_wait() {
	[ "$2" = 0 ] || kill $recv 2>/dev/null
	wait $recv
	got=$(tr -d '\r' <"$T/$1.got" 2>/dev/null | tr '\n' '|' | sed 's/|$//')
}

if [ -n "$HAVE_RECV" ]; then
	recv_start console
	P=',"terminal": true' bundle tty '"sh", "-c", "tty; [ -t 0 ] && [ -t 2 ] && echo stdio-tty; stat -c %t,%T /dev/console"'
	run tty --console-socket "$T/console.sock"
	recv_wait console "$st"
	check_eq "process.terminal: the console socket gets one pty master; the slave is stdio and /dev/console" \
		"fds=1 tty=True|/dev/pts/0|stdio-tty|88,0" "$got"
else
	skip "no python3 with socket.recv_fds for the console receiver"
fi

# --- create, start, state, exec, ps, kill, pause, delete ----------------------------------
mkdir -p "$T/marks"
M=",{\"destination\": \"/marks\", \"type\": \"bind\", \"source\": \"$T/marks\", \"options\": [\"rbind\"]}" \
	bundle life '"sh", "-c", "echo started >/marks/started; trap \"echo term >/marks/term; exit 9\" TERM; while :; do sleep 0.1; done"'
C=$ID-life
R --isolation=container create --bundle "$T/life" --pid-file "$T/life.pid" "$C" \
	>"$T/create.out" 2>&1 </dev/null
st=$?
check_eq "create exits 0" 0 "$st"
pid=$(cat "$T/life.pid")
check_that "the pid file is the pid, in decimal without a newline ($pid)" \
	'[ "$(printf %s "$pid" | tr -d 0-9)" = "" ] && [ "$(wc -c <"$T/life.pid")" = "${#pid}" ]'
check_eq "state: created, with the pid file's pid" "created $pid" \
	"$(R state "$C" | tr -d '\n ' | sed 's/.*"pid":\([0-9]*\),"status":"\([a-z]*\)".*/\2 \1/')"
check_that "the init is parked in its own pid namespace; the workload did not start" \
	'[ "$(awk "/^NSpid/ { print \$3 }" /proc/$pid/status)" = 1 ] && [ ! -e "$T/marks/started" ]'
check_that "the state records level 1; a parked init waits on exec.fifo" \
	'contains "$STATE/$C/state.json" "\"isolation\": *\"container\"" && [ -p "$STATE/$C/exec.fifo" ]'
cg=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ { print $3 }' /proc/"$pid"/cgroup)
check_eq "the init is in its cgroup (linux.cgroupsPath's default)" "/rung/$C" "$cg"
R start "$C" >"$T/start.out" 2>&1 </dev/null
st=$?
i=0
while [ ! -e "$T/marks/started" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "start exits 0 and the workload runs ($st)" '[ "$st" = 0 ] && [ -e "$T/marks/started" ]'
check_that "state: running; exec.fifo is gone" \
	'R state "$C" | grep -q "\"status\": *\"running\"" && [ ! -e "$STATE/$C/exec.fifo" ]'
check_eq "start again fails" 1 "$(R start "$C" >/dev/null 2>&1; echo $?)"

R exec "$C" sh -c 'echo $MARK $(hostname) $(cat /proc/1/comm); cat /proc/self/cgroup | grep pids' \
	>"$T/exec.out" 2>&1 </dev/null
check_eq "exec: the process joins the init's namespaces, environment and cgroup" \
	"$ID level1-host sh|$(grep pids /proc/"$pid"/cgroup)" \
	"$(tr '\n' '|' <"$T/exec.out" | sed 's/|$//')"
R exec "$C" sh -c 'exit 5' </dev/null >/dev/null 2>&1
check_eq "exec: the process's exit status is exec's (5)" 5 "$?"
R exec "$C" no-such-program </dev/null >/dev/null 2>"$T/exec-missing.err"
check_that "exec: a missing program fails with runc's words" \
	'contains "$T/exec-missing.err" "executable file not found"'
cat >"$T/process.json" <<EOF
{"args": ["sh", "-c", "echo \$\$ >/marks/exec-pid; sleep 30"], "env": ["PATH=/bin"], "cwd": "/tmp",
 "user": {"uid": 0, "gid": 0}, "capabilities": {"bounding": ["CAP_KILL"], "effective": ["CAP_KILL"], "permitted": ["CAP_KILL"]}}
EOF
R exec --process "$T/process.json" --detach --pid-file "$T/exec.pid" "$C" \
	>"$T/execd.out" 2>&1 </dev/null
st=$?
epid=$(cat "$T/exec.pid" 2>/dev/null)
i=0
while [ ! -s "$T/marks/exec-pid" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "exec --detach: the pid file names the process (in the container: $(cat "$T/marks/exec-pid" 2>/dev/null))" \
	'[ "$st" = 0 ] && [ "$(awk "/^NSpid/ { print \$3 }" /proc/$epid/status)" = "$(cat "$T/marks/exec-pid")" ]'
check_eq "... with process.json's cwd and capabilities" "/tmp 0000000000000020" \
	"$(readlink /proc/"$epid"/cwd) $(awk '/^CapEff/ { print $2 }' /proc/"$epid"/status)"
if [ -n "$HAVE_RECV" ]; then
	recv_start exectty
	R exec -t --console-socket "$T/exectty.sock" "$C" sh -c 'tty; echo $(ls /dev/pts)' \
		>/dev/null 2>"$T/exectty.err" </dev/null
	st=$?
	recv_wait exectty "$st"
	check_eq "exec -t: a pty of the container's own devpts through the console socket" \
		"0 fds=1 tty=True|/dev/pts/0|0 ptmx" "$st $got"
else
	skip "no python3 with socket.recv_fds for the console receiver"
fi
ps_json=$(R ps --format json "$C")
check_that "ps --format json lists the init and the exec'd process ($ps_json)" \
	'echo "$ps_json" | grep -q "\\b$pid\\b" && echo "$ps_json" | grep -q "\\b$epid\\b"'

echo '{"pids": {"limit": 20}, "memory": {"limit": 33554432}}' | R update --resources - "$C" >/dev/null 2>&1
check_eq "update --resources: pids.max and the memory limit, exactly" "20 33554432" \
	"$(cat /sys/fs/cgroup/pids/rung/"$C"/pids.max /sys/fs/cgroup/memory/rung/"$C"/memory.limit_in_bytes | tr '\n' ' ' | sed 's/ $//')"
R pause "$C" >/dev/null 2>&1
check_that "pause: state paused, the processes frozen" \
	'R state "$C" | grep -q "\"status\": *\"paused\"" && grep -q FROZEN /sys/fs/cgroup/freezer/rung/$C/freezer.state'
R resume "$C" >/dev/null 2>&1
check_that "resume: running again" 'R state "$C" | grep -q "\"status\": *\"running\""'

R kill "$C" TERM >/dev/null 2>&1
i=0
while R state "$C" 2>/dev/null | grep -q running && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "kill TERM: the init's handler runs, the container stops" \
	'[ "$(cat "$T/marks/term" 2>/dev/null)" = term ] && R state "$C" | grep -q "\"status\": *\"stopped\""'
check_that "... and the pid namespace takes the exec'd process with it" '! kill -0 "$epid" 2>/dev/null'
check_eq "kill of a stopped container fails: container not running" 1 \
	"$(R kill "$C" KILL >/dev/null 2>"$T/kill.err"; echo $?)"
check "... saying so" contains "$T/kill.err" "container not running"
R delete "$C" >/dev/null 2>&1
check_that "delete: the state directory and the cgroup are gone" \
	'[ ! -e "$STATE/$C" ] && [ ! -e "/sys/fs/cgroup/pids/rung/$C" ]'
check_eq "delete again: container does not exist" 1 "$(R delete "$C" 2>/dev/null; echo $?)"
check_eq "delete --force of an unknown container exits 0" 0 "$(R delete --force "$C" 2>/dev/null; echo $?)"

# Signals and statuses through rung run (the init is its child).
bundle loop '"sh", "-c", "while :; do sleep 0.1; done"'
rung --root "$STATE" --isolation=container run --bundle "$T/loop" "$C-loop" </dev/null >/dev/null 2>&1 &
runner=$!
i=0
while [ "$(R state "$C-loop" 2>/dev/null | grep -c running)" = 0 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
R kill "$C-loop" TERM >/dev/null 2>&1
sleep 0.3
check_that "kill TERM to an init that does not handle it: ignored, as for any pid 1" \
	'R state "$C-loop" | grep -q "\"status\": *\"running\""'
R kill "$C-loop" KILL >/dev/null 2>&1
wait $runner
check_eq "kill KILL: the init dies, run exits 137" 137 "$?"

# Kill before start, delete --force of a running container.
R --isolation=container create --bundle "$T/loop" "$C-parked" >/dev/null 2>&1 </dev/null
ppid=$(R state "$C-parked" | tr -d ' \n' | sed 's/.*"pid":\([0-9]*\).*/\1/')
R kill "$C-parked" TERM >/dev/null 2>&1
i=0
while kill -0 "$ppid" 2>/dev/null && [ "$(psf "$ppid" stat)" != Z ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "kill TERM before start ends the parked init" \
	'R state "$C-parked" | grep -q "\"status\": *\"stopped\""'
R delete "$C-parked" >/dev/null 2>&1
R --isolation=container create --bundle "$T/loop" "$C-force" >/dev/null 2>&1 </dev/null
R start "$C-force" >/dev/null 2>&1
fpid=$(R state "$C-force" | tr -d ' \n' | sed 's/.*"pid":\([0-9]*\).*/\1/')
R delete --force "$C-force" >/dev/null 2>&1
st=$?
check_that "delete --force of a running container kills it and removes its state ($st)" \
	'[ "$st" = 0 ] && ! R state "$C-force" >/dev/null 2>&1 && [ "$(psf "$fpid" stat | cut -c1)" != S ]'

# No pid namespace: the init's death leaves its children; kill --all and
# delete reach them through the cgroup.
NS='{"type": "mount"}, {"type": "uts"}, {"type": "network"}' bundle shared '"sh", "-c", "sleep 31 & sleep 32 & wait"'
R --isolation=container create --bundle "$T/shared" "$C-shared" >/dev/null 2>&1 </dev/null
R start "$C-shared" >/dev/null 2>&1
spid=$(R state "$C-shared" | tr -d ' \n' | sed 's/.*"pid":\([0-9]*\).*/\1/')
i=0
while [ "$(wc -l </sys/fs/cgroup/pids/rung/"$C-shared"/cgroup.procs)" -lt 3 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -KILL "$spid"
sleep 0.2
check_eq "host pid namespace: the init's death leaves its two children in the cgroup" 2 \
	"$(wc -l </sys/fs/cgroup/pids/rung/"$C-shared"/cgroup.procs)"
R kill --all "$C-shared" KILL >/dev/null 2>&1
i=0
while [ -s /sys/fs/cgroup/pids/rung/"$C-shared"/cgroup.procs ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "kill --all of a stopped container kills what is left in its cgroup" \
	'[ ! -s /sys/fs/cgroup/pids/rung/"$C-shared"/cgroup.procs ]'
R delete "$C-shared" >/dev/null 2>&1

# --- the annotation, and the flag over it --------------------------------------------------
X=',"annotations": {"dev.rung.isolation": "container"}' bundle ann '"sh", "-c", "echo $$"'
rung --root "$STATE" create --bundle "$T/ann" "$C-ann" >/dev/null 2>"$T/ann.err" </dev/null
check_that "the annotation dev.rung.isolation=container picks level 1 without the flag" \
	'contains "$STATE/$C-ann/state.json" "\"isolation\": *\"container\""'
R delete --force "$C-ann" >/dev/null 2>&1
# (a sentry container, named outside $ID-*: its cgroup is the sentry's business)
rung --root "$STATE" --isolation=sentry create --bundle "$T/ann" "s$C-ann2" >/dev/null 2>&1 </dev/null
check_that "... and --isolation=sentry overrides it" \
	'[ -e "$STATE/s$C-ann2/state.json" ] && ! contains "$STATE/s$C-ann2/state.json" "\"isolation\": *\"container\""'
R delete --force "s$C-ann2" >/dev/null 2>&1
for _ in 1 2 3 4 5 6 7 8 9 10; do
	rmdir /sys/fs/cgroup/*/rung/"s$C-ann2" 2>/dev/null
	[ -z "$(ls -d /sys/fs/cgroup/*/rung/"s$C-ann2" 2>/dev/null)" ] && break
	sleep 0.2
done
X=',"annotations": {"dev.rung.isolation": "frobnicate"}' bundle ann3 '"true"'
rung --root "$STATE" run --bundle "$T/ann3" "$C-ann3" >/dev/null 2>"$T/ann3.err" </dev/null
check_that "an unknown level in the annotation fails create, naming it" \
	'contains "$T/ann3.err" "frobnicate"'

# --- rung do --isolation=container ------------------------------------------------------------
out=$(rung do --isolation=container -- sh -c 'echo $$ $(hostname); exit 4' </dev/null 2>&1)
st=$?
check_eq "rung do --isolation=container: pid 1, hostname rung, the exit status" "1 rung 4" "$out $st"
probe=/etc/rung-level1-$$
out=$(rung do --isolation=container -- sh -c "echo x >$probe && cat $probe" </dev/null 2>&1)
check_that "rung do: a write to the host's / stays in the container's in-memory overlay" \
	'[ "$out" = x ] && [ ! -e "$probe" ]'
rung do --isolation=container --rootfs "$ROOTFS" -- no-such-program </dev/null >/dev/null 2>"$T/do.err"
st=$?
check_that "rung do: a missing program exits 127, saying so ($st)" \
	'[ "$st" = 127 ] && contains "$T/do.err" "no-such-program.*not found"'
mkdir -p "$T/dovol"
echo 'do volume' >"$T/dovol/f"
out=$(rung do --isolation=container --rootfs "$ROOTFS" -v "$T/dovol:/vol:ro" --tmpfs /scratch \
	--read-only -- sh -c 'cat /vol/f; touch /vol/g /x 2>/dev/null || echo ro; touch /scratch/y && echo tmpfs-rw' \
	</dev/null 2>&1)
check_eq "rung do: -v (read-only), --tmpfs, --read-only" "do volume|ro|tmpfs-rw" \
	"$(echo "$out" | tr '\n' '|' | sed 's/|$//')"
out=$(rung do --isolation=container --rootfs "$ROOTFS" -- ls /proc/self/fd </dev/null 3>/dev/null 2>&1 |
	tr '\n' ' ')
check_eq "rung do: no host descriptor reaches the program" "0 1 2 3 " "$out"
"$RUNG" do --isolation=container -- sh -c 'exec sleep 30' </dev/null >/dev/null 2>&1 &
dopid=$!
sleep 0.5
kill -TERM $dopid
wait $dopid 2>/dev/null
check_eq "rung do: SIGTERM to rung ends a program that does not handle it, status 143" 143 "$?"
rung do --isolation=container --strace -- true >/dev/null 2>"$T/dostrace.err" </dev/null
st=$?
check_that "rung do: a sentry-only option is refused ($st)" \
	'[ "$st" != 0 ] && contains "$T/dostrace.err" "need the sentry"'

# --- nothing left behind --------------------------------------------------------------------
for c in $(R list --format json 2>/dev/null | grep -o '"id": *"[^"]*"' | cut -d'"' -f4); do
	R delete --force "$c" >/dev/null 2>&1
done
sleep 0.2
left=$(for p in $(pgrep -x sleep); do { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null |
	grep -qx "MARK=$ID" && echo " $p"; done)
check_eq "no container process (a sleep with our mark) is left" "" "$left"
check_that "no mount is left on the host (none under the test's directory)" \
	'! grep -qF "$T" /proc/self/mountinfo'
check_that "no cgroup is left" '[ -z "$(ls -d /sys/fs/cgroup/pids/rung/$ID-* 2>/dev/null)" ]'
for d in $(rung_cg); do
	case $rung_cg_before in *" $d "*) ;; *) rmdir "$d" 2>/dev/null ;; esac
done
check_clean "the level-1 tests"
