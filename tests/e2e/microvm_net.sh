#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; $vars are for the guest's sh (check_that expands and uses them later)
# Networking at the VM levels: user-mode networking (QEMU's slirp) with the
# guest's eth0 at 10.0.2.15, run in the container's network namespace, so
# the VM's traffic leaves through the container's interface (to a second
# namespace of the test's own, standing in for the host); --network none
# (or a namespace with loopback alone, Docker's none) gives no NIC at all.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
N=6
plan $N
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/vmlib.sh"
vm_require
qemu-system-x86_64 -netdev help 2>/dev/null | grep -qx user || skip_all "this QEMU has no user-mode networking (libslirp)"
command -v ip >/dev/null || skip_all "no ip(8) (apt-get install iproute2)"
[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"

R=$T/rootfs
vm_rootfs "$R" sh cat echo ls wget

# Two namespaces of the test's own joined by a veth: the container's, NS,
# and H standing in for the host (the host's own namespace is never
# used). One web server on H's end of the veth answers with the client's
# address (a CGI); one inside NS, on its loopback only, can be reached by
# nothing but a process in NS (slirp maps 10.0.2.2, the guest's gateway,
# to the loopback of QEMU's namespace).
NS=rungvm$$
H=rungvmh$$
A=10.$(($$ % 200 + 20)).$(($$ / 200 % 250 + 1))
ip netns add "$NS" || skip_all "ip netns add failed"
ip netns add "$H" || {
	ip netns del "$NS"
	skip_all "ip netns add failed"
}
cleanup() {
	[ -n "${srv1:-}" ] && kill "$srv1" 2>/dev/null
	[ -n "${srv2:-}" ] && kill "$srv2" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip netns del "$H" 2>/dev/null
}
trap 'cleanup; e2e_exit' EXIT
ip -n "$H" link add veth0 type veth peer name eth0 netns "$NS"
ip -n "$H" addr add "$A.1/24" dev veth0
ip -n "$H" link set veth0 up
ip -n "$H" link set lo up
ip -n "$NS" addr add "$A.2/24" dev eth0
ip -n "$NS" link set eth0 up
ip -n "$NS" link set lo up
ip -n "$NS" route add default via "$A.1"

mkdir -p "$T/www/cgi-bin" "$T/inns"
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\nclient %%s\\n" "$REMOTE_ADDR"\n' >"$T/www/cgi-bin/addr"
chmod +x "$T/www/cgi-bin/addr"
echo inside-the-namespace >"$T/inns/index.html"
nsenter --net="/run/netns/$H" "$BB" httpd -f -p "$A.1:8080" -h "$T/www" &
srv1=$!
nsenter --net="/run/netns/$NS" "$BB" httpd -f -p 127.0.0.1:8081 -h "$T/inns" &
srv2=$!
sleep 0.3

cat >"$T/config.json" <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": {"uid": 0, "gid": 0},
		"args": ["sh", "-c", "ls /sys/class/net; cat /etc/resolv.conf; wget -q -O - http://$A.1:8080/cgi-bin/addr; wget -q -O - http://10.0.2.2:8081/"],
		"env": ["PATH=/bin"],
		"cwd": "/"
	},
	"root": {"path": "$R", "readonly": false},
	"hostname": "vmnet",
	"mounts": [
		{"destination": "/proc", "type": "proc", "source": "proc"},
		{"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["ro"]}
	],
	"annotations": {"dev.rung.isolation": "microvm"},
	"linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}, {"type": "network", "path": "/var/run/netns/$NS"}],
		"cgroupsPath": "$E2E_CGROUP/vmnet"}
}
JSON
t0=$(now)
rung --root "$T/state" run --bundle "$T" vmnet >"$T/out" 2>"$T/err"
st=$?
diag "rung run in the namespace (boot, two fetches): $(since "$t0") s"
diag "$(cat "$T/out")"
check_that "run: the guest has eth0 and exits 0" '[ $st = 0 ] && contains "$T/out" "^eth0$"'
check_that "the guest fetched from the host end of the container's veth, coming from the container's address $A.2" \
	'contains "$T/out" "^client $A\.2$"'
check_that "10.0.2.2 is the loopback of the container's namespace (QEMU runs in it)" \
	'contains "$T/out" "^inside-the-namespace$"'
check_that "a rootfs without resolv.conf gets slirp's DNS, 10.0.2.3" \
	'contains "$T/out" "^nameserver 10\.0\.2\.3$" && [ "$(cat "$R/etc/resolv.conf")" = "nameserver 10.0.2.3" ]'
rm -f "$R/etc/resolv.conf"

# --network none: loopback alone.
out=$(rung --network none do --isolation=microvm --rootfs "$R" -- ls /sys/class/net 2>"$T/err")
check_eq "--network none: the guest has loopback alone" lo "$out"

vm_check_gone "no QEMU process is left" "qemu-system.*$T"
