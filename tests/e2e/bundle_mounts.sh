#!/bin/sh
# shellcheck disable=SC2016,SC2034 # check_that expands later (and uses what looks unused)
# config.json's mounts, maskedPaths, readonlyPaths, sysctl and root.readonly,
# through `rung run` on a bundle shaped like Docker's (its mounts list, a
# read-only root as --read-only makes it):
# - Docker's single-file binds (/etc/hosts, /etc/hostname, /etc/resolv.conf)
#   show the host files, and a host-side change to them while the container
#   runs; a bound directory read-write and read-only; a relative bind source
#   is relative to the bundle;
# - tmpfs /dev/shm with size= and mode=, mqueue, cgroup (an empty read-only
#   tmpfs), proc, sysfs, devpts with Docker's options;
# - linux.sysctl set in the guest; maskedPaths (a file reads as /dev/null,
#   a directory is empty) and readonlyPaths (EROFS);
# - root.readonly: EROFS, and the rootfs on the host untouched;
# - an unsupported option, type or sysctl, or a missing bind source, fails
#   `rung create` with an error naming it, and leaves nothing behind.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
BB=/bin/busybox
T=$E2E_TMP
plan 19

if [ ! -x "$BB" ] || ! "$BB" --list | grep -qx df; then
	for _ in $(seq 19); do skip "no static $BB"; done
	exit 0
fi

B=$T/bundle
R=$B/rootfs
mkdir -p "$R/bin" "$R/etc/private" "$R/proc" "$R/sys" "$R/dev" "$T/state"
cp "$BB" "$R/bin/busybox"
for a in sh cat df echo grep ls sleep stat test touch wc [; do
	ln -s busybox "$R/bin/$a"
done
echo rootfs-hosts >"$R/etc/hosts"
echo private >"$R/etc/private/key"
H=$T/containers
mkdir -p "$H/vol"
echo "127.0.0.1 localhost" >"$H/hosts"
echo c0ffee >"$H/hostname"
echo "nameserver 192.0.2.1" >"$H/resolv.conf"
echo data >"$H/vol/f"
snapshot() { (cd "$R" && find . -printf '%p %y %s %m\n' | sort) | md5sum; }

# config READONLY SCRIPT [EXTRA_MOUNT_JSON [SYSCTL_JSON]]: config.json running
# SCRIPT with Docker's mounts plus the test's binds.
config() {
	script=$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g; s/	/\\t/g')
	cat >"$B/config.json" <<-EOF
		{
		  "ociVersion": "1.0.2-dev",
		  "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", "$script"],
		    "env": ["PATH=/bin"], "cwd": "/"},
		  "root": {"path": "rootfs", "readonly": $1},
		  "hostname": "c0ffee",
		  "mounts": [
		    {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
		    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
		    {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
		    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
		    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["ro", "nosuid", "noexec", "nodev"]},
		    {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
		    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm", "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536"]},
		    {"destination": "/etc/resolv.conf", "type": "bind", "source": "$H/resolv.conf", "options": ["rbind", "rprivate"]},
		    {"destination": "/etc/hostname", "type": "bind", "source": "$H/hostname", "options": ["rbind", "rprivate"]},
		    {"destination": "/etc/hosts", "type": "bind", "source": "../containers/hosts", "options": ["rbind", "rprivate"]},
		    {"destination": "/vol", "type": "bind", "source": "$H/vol", "options": ["rbind", "rprivate"]},
		    {"destination": "/rovol", "type": "bind", "source": "$H/vol", "options": ["rbind", "ro"]}${3:+,
		    $3}
		  ],
		  "linux": {
		    "cgroupsPath": "$E2E_CGROUP/bundle",
		    "sysctl": {"net.ipv4.ip_unprivileged_port_start": "0", "net.ipv4.ping_group_range": "0 2147483647"${4:+, $4}},
		    "maskedPaths": ["/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/cpuinfo",
		      "/proc/sys/kernel", "/etc/private", "/sys/firmware"],
		    "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"],
		    "namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}]
		  }
		}
	EOF
}

# run ID: rung run the bundle; output in $T/out, errors in $T/err, status in $st.
run() {
	rung --root "$T/state" run --bundle "$B" "$1" >"$T/out" 2>"$T/err"
	st=$?
}

# --- Docker's mounts, on a read-only root --------------------------------------------------
before=$(snapshot)
config true 'cat /etc/hosts /etc/hostname /etc/resolv.conf; cat /vol/f; echo w >/vol/new; echo w >/rovol/x || echo ro-refused; touch /newfile || echo root-refused; echo y >/etc/hosts.new || echo root-refused; cat /proc/sys/net/ipv4/ip_unprivileged_port_start /proc/sys/net/ipv4/ping_group_range; echo shm >/dev/shm/f && cat /dev/shm/f; stat -c %a /dev/shm; df -k /dev/shm | grep -c " 64 "; ls -A /sys/fs/cgroup | wc -l; touch /sys/fs/cgroup/x || echo cg-refused; ls -d /dev/mqueue; grep -E " /(sys/fs/cgroup|dev/mqueue|dev/shm) " /proc/mounts'
run ro
check_that "the container ran" '[ $st = 0 ]'
check_that "Docker's single-file binds show the host's files" '[ "$(head -n 3 "$T/out")" = "127.0.0.1 localhost
c0ffee
nameserver 192.0.2.1" ]'
check_that "a bound directory reads and takes writes (seen on the host)" 'contains "$T/out" "^data$" && [ "$(cat "$H/vol/new")" = w ]'
check_that "a read-only bind refuses writes" 'contains "$T/out" "^ro-refused$" && [ ! -e "$H/vol/x" ]'
check_that "root.readonly: writes to the root fail with EROFS" '[ "$(grep -c "^root-refused$" "$T/out")" = 2 ] && contains "$T/err" "Read-only file system"'
check_that "root.readonly: the rootfs on the host is as it was" '[ "$(snapshot)" = "$before" ]'
check_that "linux.sysctl is set in the guest" 'contains "$T/out" "^0$" && contains "$T/out" "^0	2147483647$"'
check_that "/dev/shm is a tmpfs of size= and mode=" 'contains "$T/out" "^shm$" && contains "$T/out" "^1777$" && contains "$T/out" "^1$"'
check_that "cgroup is an empty read-only tmpfs; mqueue is there" 'contains "$T/out" "^cg-refused$" && contains "$T/out" "^/dev/mqueue$" && contains "$T/out" "^cgroup /sys/fs/cgroup tmpfs ro,nosuid,nodev,noexec " && contains "$T/out" "^mqueue /dev/mqueue tmpfs rw,nosuid,nodev,noexec "'
rm -f "$H/vol/new"

# --- masked and read-only paths -------------------------------------------------------------------
config true 'wc -c </proc/cpuinfo; stat -c %F /proc/cpuinfo; ls -A /proc/sys/kernel | wc -l; ls -A /etc/private | wc -l; cat /proc/sys/vm/overcommit_memory; echo 1 >/proc/sys/vm/overcommit_memory || echo sys-refused; touch /proc/sys/kernel/x || echo mask-refused; ls /proc/sys'
run masked
check_that "a masked file reads as /dev/null" '[ $st = 0 ] && [ "$(sed -n 1,2p "$T/out")" = "0
character special file" ]'
check_that "masked directories (in /proc and in the rootfs) are empty and read-only" '[ "$(sed -n 3,4p "$T/out")" = "0
0" ] && contains "$T/out" "^mask-refused$"'
check_that "a read-only path refuses writes; what it holds still reads" 'contains "$T/out" "^sys-refused$" && contains "$T/out" "^0$" && contains "$T/out" "^vm$"'

# --- the live host view, on a writable root ------------------------------------------------------
config false 'cat /etc/hosts; echo >/vol/ready; i=0; while [ ! -e /vol/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; cat /etc/hosts; cat /vol/f'
rung --root "$T/state" run --bundle "$B" live >"$T/out" 2>"$T/err" &
pid=$!
i=0
while [ ! -e "$H/vol/ready" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
echo "10.0.0.2 peer" >>"$H/hosts"
echo more >>"$H/vol/f"
touch "$H/vol/go"
wait $pid
st=$?
check_that "a host-side change to a bound file and directory is seen inside" '[ $st = 0 ] && [ "$(cat "$T/out")" = "127.0.0.1 localhost
127.0.0.1 localhost
10.0.0.2 peer
data
more" ]'
rm -f "$H/vol/ready" "$H/vol/go"
echo data >"$H/vol/f"
echo "127.0.0.1 localhost" >"$H/hosts"

# --- refused at create ------------------------------------------------------------------------------
# refused NAME WHAT PATTERN [EXTRA_MOUNT [SYSCTL]]: create fails naming it.
refused() {
	config false 'echo ran' "$4" "${5:-}"
	rung --root "$T/state" create --bundle "$B" "$1" >"$T/out" 2>"$T/err"
	st=$?
	rung --root "$T/state" delete --force "$1" >/dev/null 2>&1
	pat=$3
	check_that "$2 fails create, naming it" '[ $st != 0 ] && contains "$T/err" "$pat" && ! contains "$T/out" ran'
}
refused badopt "an unsupported mount option" 'mounts\[12\].*option .frob. is not supported' \
	'{"destination": "/x", "type": "tmpfs", "source": "tmpfs", "options": ["frob"]}'
refused badtype "an unsupported mount type" 'mounts\[12\].*type .ext4. is not supported' \
	'{"destination": "/x", "type": "ext4", "source": "/dev/sda1"}'
refused nosrc "a missing bind source" 'mounts\[12\].*no-such-dir' \
	"{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"$T/no-such-dir\", \"options\": [\"rbind\"]}"
refused badsysctl "a sysctl the guest kernel does not model" 'linux.sysctl.*kernel.frobnicate' \
	'' '"kernel.frobnicate": "1"'
long=$(printf '%070d' 0)
refused badvalue "a bad sysctl value" "linux.sysctl.*bad value .$long. for .kernel.hostname." \
	'' "\"kernel.hostname\": \"$long\""
check_clean "the bundle mount tests"
