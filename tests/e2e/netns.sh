#!/bin/sh
# shellcheck disable=SC2016 # check_that expands later
# A sandbox takes over only a network namespace of its own, and gives it
# back (docs/network.md, "Network namespaces"). Everything happens in
# namespaces of the test's own:
#   H  stands for a host: vA 10.77.0.2/24 and fd77::2/64, a default route,
#      and a process living in it;
#   P  the peer: vB (10.77.0.1, the other end of vA) and vY (10.78.0.1, the
#      other end of vX), an echo server on port 8000;
#   X  held by a bind mount only (`ip netns add`): vX 10.78.0.2/24 and
#      fd78::2/64, default routes via 10.78.0.1 and fd78::1.
# Checked: a bundle without a network namespace run from H gets a new,
# empty one in sandbox and none modes (a loopback alone; H keeps its
# addresses and routes; the log says so), and H's own in host mode (flag
# and annotation); a spec path or --netns naming H, a process's
# /proc/PID/ns/net or pid 1's namespace is refused with an error naming it
# and the choices, and H is unchanged; X is taken over (the guest has vX,
# the host kernel's copy of the address is gone meanwhile) and gets its
# addresses and routes back when the sandbox ends: rung do, rung run, and
# after a SIGKILL of either's sandbox.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
N=18
PROG=$E2E_BIN/netconnect
BB=/bin/busybox
plan $N
[ -x "$PROG" ] || skip_all "no $PROG (make check builds it)"
[ "$(id -u)" = 0 ] || skip_all "network namespaces need root"
command -v ip >/dev/null || skip_all "no ip(8)"
file -L "$BB" 2>/dev/null | grep -q 'statically linked' || skip_all "no static $BB"

H=rung-nsh-$$
P=rung-nsp-$$
X=rung-nsx-$$
T=$E2E_TMP
cleanup() {
	for p in ${srv_pid:-} ${holder:-} ${bg:-}; do
		kill -9 "$p" 2>/dev/null
	done
	ip netns del "$H" 2>/dev/null
	ip netns del "$P" 2>/dev/null
	ip netns del "$X" 2>/dev/null
	rm -rf "$E2E_TMP"
}
trap cleanup EXIT
ip netns add "$H" && ip netns add "$P" && ip netns add "$X" ||
	skip_all "cannot make network namespaces"
ip -n "$H" link add vA type veth peer name vB netns "$P" &&
	ip -n "$X" link add vX type veth peer name vY netns "$P" &&
	ip -n "$H" addr add 10.77.0.2/24 dev vA && ip -n "$H" addr add fd77::2/64 dev vA nodad &&
	ip -n "$P" addr add 10.77.0.1/24 dev vB && ip -n "$P" addr add 10.78.0.1/24 dev vY &&
	ip -n "$P" addr add fd78::1/64 dev vY nodad &&
	ip -n "$X" addr add 10.78.0.2/24 dev vX && ip -n "$X" addr add fd78::2/64 dev vX nodad &&
	for l in "$H vA" "$P vB" "$P vY" "$X vX" "$H lo" "$P lo" "$X lo"; do
		# shellcheck disable=SC2086 # "NS DEV": two words
		ip -n ${l% *} link set ${l#* } up || exit 1
	done &&
	ip -n "$H" route add default via 10.77.0.1 &&
	ip -n "$X" route add default via 10.78.0.1 && ip -n "$X" -6 route add default via fd78::1 ||
	skip_all "cannot make the veth pairs"
ip netns exec "$P" "$BB" nc -ll -p 8000 -e /bin/cat &
srv_pid=$!
# A process living in H, as the host's own do.
ip netns exec "$H" sleep 600 &
holder=$!

# netstate NS DEV: DEV's addresses (family and prefix, sorted) and NS's
# routes, both families.
netstate() {
	ip -n "$1" -o addr show dev "$2" | awk '{ print $3, $4 }' | sort
	ip -n "$1" -4 route show
	ip -n "$1" -6 route show
}
# settles NS DEV WANT: wait (up to 10 s) until netstate NS DEV is WANT.
settles() {
	i=0
	until [ "$(netstate "$1" "$2")" = "$3" ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(netstate "$1" "$2")" = "$3" ]
}
H_STATE=$(netstate "$H" vA)
X_STATE=$(netstate "$X" vX)
i=0
until ip netns exec "$H" "$PROG" tcp 10.77.0.1 8000 >/dev/null 2>&1 || [ $i -ge 50 ]; do
	sleep 0.1
	i=$((i + 1))
done

# The bundle: busybox and netconnect; config SCRIPT [NETNS_PATH [ANNOTATIONS]].
B=$T/bundle
mkdir -p "$B/rootfs/bin" "$B/rootfs/proc" "$B/rootfs/dev" "$B/rootfs/sys" "$T/state"
cp "$BB" "$B/rootfs/bin/busybox"
cp "$PROG" "$B/rootfs/bin/netconnect"
for a in sh awk cat cut ip sleep tail tr; do
	ln -s busybox "$B/rootfs/bin/$a"
done
config() {
	script=$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')
	netns=
	[ -z "${2:-}" ] || netns=", {\"type\": \"network\", \"path\": \"$2\"}"
	cat >"$B/config.json" <<-EOF
		{
		  "ociVersion": "1.0.2-dev",
		  "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh", "-c", "$script"],
		    "env": ["PATH=/bin"], "cwd": "/"},
		  "root": {"path": "rootfs"},
		  "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
		  "annotations": {${3:-}},
		  "linux": {"namespaces": [{"type": "pid"}, {"type": "ipc"}, {"type": "uts"},
		    {"type": "mount"}$netns]}
		}
	EOF
}
# in_h ARGS...: rung ARGS run from H (as from the host), with the test's state.
in_h() {
	ip netns exec "$H" timeout -k 5 "$E2E_TIMEOUT" "$RUNG" --root "$T/state" "$@"
}
LINKS='tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" " "; echo; ip -o link | cut -d: -f2 | tr -d " " | tr "\n" " "; echo'

# --- a spec without a network namespace ------------------------------------------------
config "$LINKS; netconnect tcp 10.77.0.1 8000"
out=$(in_h --log "$T/log" --egress allow=10.77.0.0/24 run --bundle "$B" t1 2>&1)
check_eq "no network namespace in the spec: a new one, with a loopback alone" "lo 
lo 
connect: ENETUNREACH" "$out"
check_that "... and the log says so" \
	'contains "$T/log" "the spec names no network namespace, the sandbox runs in a new, empty one"'
check_eq "... and the caller's namespace keeps its addresses (v4, v6) and routes" \
	"$H_STATE" "$(netstate "$H" vA)"
out=$(in_h --network none run --bundle "$B" t2 2>&1)
check_that "--network none: a loopback alone too, and the caller's namespace as it was" \
	'[ "$(echo "$out" | head -n 2)" = "lo 
lo " ] && [ "$(netstate "$H" vA)" = "$H_STATE" ]'
config 'ip -o addr | awk "{ print \$2, \$4 }" | tr "\n" " "; echo; netconnect tcp 10.77.0.1 8000'
out=$(in_h --network host --egress allow=10.77.0.0/24 run --bundle "$B" t3 2>&1)
check_that "--network host: the caller's namespace, its addresses and peers ($out)" \
	'echo "$out" | grep -q "vA 10.77.0.2/24" && echo "$out" | grep -q "^reply: ping"'
config 'ip -o addr | awk "{ print \$2, \$4 }" | tr "\n" " "' "" '"dev.rung.network": "host"'
out=$(in_h run --bundle "$B" t4 2>&1)
check_that "the annotation dev.rung.network=host: the caller's namespace as well ($out)" \
	'echo "$out" | grep -q "vA 10.77.0.2/24" && [ "$(netstate "$H" vA)" = "$H_STATE" ]'

# --- namespaces that are not the sandbox's own --------------------------------------------
config true "/run/netns/$H"
# Into a file: a create that wrongly succeeds leaves a sandbox holding its stdout.
rung --root "$T/state" create --bundle "$B" t5 >"$T/out" 2>&1
st=$?
out=$(cat "$T/out")
[ $st = 0 ] && rung --root "$T/state" delete --force t5 >/dev/null 2>&1
check_that "a spec path naming a namespace a process uses: create fails, naming it and the choices ($out)" \
	'[ $st != 0 ] && echo "$out" | grep -q "linux.namespaces: the network namespace \`/run/netns/$H\` is also used by process $holder (sleep)" && echo "$out" | grep -q -- "--network host"'
check_that "... nothing of it changed, no container left" \
	'[ "$(netstate "$H" vA)" = "$H_STATE" ] && ! rung --root "$T/state" state t5 >/dev/null 2>&1'
config true "/proc/$holder/ns/net"
out=$(rung --root "$T/state" run --bundle "$B" t6 2>&1)
check_that "a container's /proc/PID/ns/net is refused as well ($out)" \
	'echo "$out" | grep -q "the network namespace \`/proc/$holder/ns/net\` is also used" && [ "$(netstate "$H" vA)" = "$H_STATE" ]'
out=$(rung do --netns "/run/netns/$H" -- true 2>&1)
check_that "rung do --netns of such a namespace is refused, naming --network host ($out)" \
	'echo "$out" | grep -q -- "--netns: the network namespace \`/run/netns/$H\` is also used" && echo "$out" | grep -q "rung do --network host" && [ "$(netstate "$H" vA)" = "$H_STATE" ]'
# pid 1's namespace, in a PID namespace (and a network namespace) of its own.
cat >"$T/pid1.sh" <<'EOF'
ip link set lo up && exec timeout -k 5 "$1" "$2" do --netns /proc/1/ns/net -- true
EOF
out=$(unshare -n -p -f --mount-proc sh "$T/pid1.sh" "$E2E_TIMEOUT" "$RUNG" 2>&1)
case $out in
*"unshare:"*) skip "no PID namespace of the test's own ($out)" ;;
*) check_that "pid 1's network namespace is refused as the host's initial one ($out)" \
	'echo "$out" | grep -q "network namespace \`/proc/1/ns/net\` is the host.s initial one"' ;;
esac

# --- a namespace only a bind mount holds -------------------------------------------------------
out=$(rung do --netns "/run/netns/$X" --egress allow=10.78.0.1 -- /bin/sh -c \
	'ip -o addr | awk "\$2 == \"vX\" { print \$2, \$4 }" | tr "\n" " "; echo; '"$PROG"' tcp 10.78.0.1 8000' 2>&1)
check_that "rung do --netns of a bind-mounted namespace: the sandbox has its interface ($out)" \
	'echo "$out" | grep -q "^vX 10.78.0.2/24 .*vX fd78::2/64" && echo "$out" | grep -q "^reply: ping"'
check_eq "... and gives its addresses and routes back when it ends" "$X_STATE" "$(netstate "$X" vX)"
"$RUNG" do --netns "/run/netns/$X" -- /bin/sleep 60 >/dev/null 2>"$T/takeover.err" &
bg=$!
# Wait until its guest runs (a rung-stub below it), 30 s at most, less if
# it ends: it has taken the interface over by then. Looking at X with
# ip(8) before that would make ip a second user of X, which the sandbox
# then refuses to take over.
i=0
while ! ps -eo pid=,ppid=,comm= | awk -v root=$bg '{ up[$1] = $2; comm[$1] = $3 }
	END { for (p in comm) if (comm[p] == "rung-stub") for (q = p; q in up; q = up[q]) if (q == root) exit 0; exit 1 }' &&
	[ $i -lt 300 ] && kill -0 $bg 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
check_that "while a sandbox has it, the host kernel's copy of the address is gone ($(cat "$T/takeover.err"))" \
	'! ip -n "$X" -4 addr show dev vX | grep -q inet'
kill -9 $bg
wait $bg 2>/dev/null
bg=
check_that "... and after a SIGKILL of the sandbox, the namespace gets it all back" \
	'settles "$X" vX "$X_STATE"'
config 'ip -o addr show dev vX | awk "{ print \$2, \$4 }" | tr "\n" " "' "/run/netns/$X"
out=$(rung --root "$T/state" run --bundle "$B" t7 2>&1)
check_that "a spec path naming it: the container has the interface, and gives it back ($out)" \
	'echo "$out" | grep -q "^vX 10.78.0.2/24" && [ "$(netstate "$X" vX)" = "$X_STATE" ]'
config 'sleep 60' "/run/netns/$X"
rung --root "$T/state" create --bundle "$B" --pid-file "$T/pid" t8 >/dev/null 2>&1
kill -9 "$(cat "$T/pid" 2>/dev/null)" 2>/dev/null
check_that "a created container's sandbox killed with SIGKILL: given back as well" \
	'[ -s "$T/pid" ] && settles "$X" vX "$X_STATE"'
rung --root "$T/state" delete --force t8 >/dev/null 2>&1
check_clean "the network namespace checks"
