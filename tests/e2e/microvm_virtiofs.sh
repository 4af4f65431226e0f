#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; $vars are for the guest's sh (check_that expands and uses them later)
# virtio-fs at the VM levels (opt-in: --vm-fs virtiofs, or the
# dev.rung.vm.fs annotation): the root is served by a virtiofsd of the
# VM's own, the bind mounts stay 9p. Skipped where no virtiofsd is
# installed (Debian's virtiofsd package, or the one qemu-system-common 7.2
# ships in /usr/lib/qemu).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
N=6
plan $N
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/vmlib.sh"
export TMPDIR="$E2E_TMP" # rung do's run directory, which QEMU's and virtiofsd's arguments name
[ "$(id -u)" = 0 ] || skip_all "virtiofsd needs root"
vm_require
# Which virtiofsd rung would run (virtiofsd.h), or none.
vfsd=$(sed -n 's|^virtiofsd: \(/.*\)$|\1|p' "$T/setup")
[ -n "$vfsd" ] || skip_all "no virtiofsd (apt-get install virtiofsd, or qemu-system-common's /usr/lib/qemu/virtiofsd)"
diag "virtiofsd: $vfsd"

R=$T/rootfs
vm_rootfs "$R" sh cat echo ls grep mkdir chown stat cut true

t0=$(now)
out=$(rung --vm-fs virtiofs do --isolation=microvm --rootfs "$R" --overlay none -- \
	sh -c 'grep " / " /proc/mounts; mkdir /etc/v; echo over-virtiofs >/etc/v/f; chown 42:43 /etc/v/f' 2>"$T/err")
st=$?
diag "rung --vm-fs virtiofs do (boot, write): $(since "$t0") s"
check_that "do --vm-fs virtiofs: the guest's root is virtio-fs, rw" '[ $st = 0 ] && [ "$out" = "rootfs / virtiofs rw,relatime 0 0" ]'
check_eq "a file made in root's /etc and given to 42:43 is so on the host" \
	"over-virtiofs 42:43" "$(cat "$R/etc/v/f" 2>/dev/null) $(stat -c '%u:%g' "$R/etc/v/f" 2>/dev/null)"

# A container: the annotation, a read-only root, a 9p bind mount beside it.
echo bind-mounted >"$T/marker"
: >"$R/etc/marker" # the mountpoint: a read-only root cannot have it made
bundle() {
	mkdir -p "$1"
	cat >"$1/config.json" <<JSON
{
	"ociVersion": "1.0.2",
	"process": {"user": {"uid": 0, "gid": 0}, "args": $2, "env": ["PATH=/bin"], "cwd": "/"},
	"root": {"path": "$R", "readonly": true},
	"mounts": [
		{"destination": "/proc", "type": "proc", "source": "proc"},
		{"destination": "/etc/marker", "type": "bind", "source": "$T/marker", "options": ["rbind", "ro"]}
	],
	"annotations": {"dev.rung.isolation": "microvm", "dev.rung.vm.fs": "$3"},
	"linux": {"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "mount"}],
		"cgroupsPath": "$E2E_CGROUP/vm"}
}
JSON
}
bundle "$T/c1" '["sh", "-c", "grep -E \" / | /etc/marker \" /proc/mounts | cut -d\" \" -f2-4; cat /etc/marker; echo x >/etc/new || echo refused"]' virtiofs
t0=$(now)
rung --root "$T/state" run --bundle "$T/c1" c1 >"$T/c1.out" 2>"$T/c1.err"
st=$?
diag "rung run with the annotation (boot): $(since "$t0") s"
diag "$(cat "$T/c1.out" "$T/c1.err")"
check_that "run: the annotation's virtio-fs root, read-only; the bind mount stays 9p" \
	'[ $st = 0 ] && contains "$T/c1.out" "^/ virtiofs ro" && contains "$T/c1.out" "^/etc/marker 9p ro" &&
	 contains "$T/c1.out" "^bind-mounted$" && contains "$T/c1.out" "^refused$" && [ ! -e "$R/etc/new" ]'
bundle "$T/c2" '["true"]' nfs
rung --root "$T/state" create --bundle "$T/c2" c2 2>"$T/c2.err"
st=$?
check_that "an unknown dev.rung.vm.fs is refused at create" \
	'[ $st != 0 ] && contains "$T/c2.err" "dev.rung.vm.fs.*9p or virtiofs, not .nfs"'
rung --root "$T/state" delete --force c2 2>/dev/null

vm_check_gone "no QEMU or virtiofsd is left" "(qemu-system|virtiofsd).*$T"
check_that "no state is left" '[ -z "$(ls "$T/state" 2>/dev/null)" ]'
