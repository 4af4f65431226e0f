#!/bin/sh
# shellcheck disable=SC2016 # $vars in single quotes are for the container's sh
# Docker end to end at the microVM level: a dockerd of the test's own
# (private data root, exec root, socket and bridge; most containers have
# --network none, one the bridge, which the VM's slirp leaves through) with
# a second runtime name, rung-vm, registered with --isolation=microvm in
# its runtimeArgs (Docker 20.10 has no --annotation). Each container is a
# QEMU VM with a real guest kernel (TCG where there is no KVM), so there
# are few of them.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
PLAN=9
netns_own "$@"
own=$?
plan $PLAN
[ $own = 0 ] || skip_all "dockerd runs in a network namespace of the test's own: needs root, ip(8), nsenter(1)"

DK_TIMEOUT=180 # a VM boots under TCG
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/dockerd.sh"
dockerd_require
command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
"$RUNG" setup-vm >"$E2E_TMP/setup" 2>&1 || skip_all "no guest kernel: $(tail -n 1 "$E2E_TMP/setup")"
release=$(sed -n 's/^kernel: .*(\(.*\))$/\1/p' "$E2E_TMP/setup")

printf '{"runtimes":{"rung-vm":{"path":"%s","runtimeArgs":["--isolation=microvm","--allow-emulation"]}}}\n' \
	"$RUNG_ABS" >"$DK/daemon.json"
command -v ip >/dev/null || skip_all "no ip(8) to make the test's bridge"
BR=rungvmbr0
ip link del "$BR" 2>/dev/null
ip link add "$BR" type bridge && ip addr add 10.214.0.1/24 dev "$BR" && ip link set "$BR" up ||
	skip_all "cannot make a bridge (no CAP_NET_ADMIN?)"
dockerd_cleanup() {
	[ -n "${srv:-}" ] && kill "$srv" 2>/dev/null
	ip link del "$BR" 2>/dev/null
}
dockerd_start "$DK/daemon.json" --bridge "$BR" --ip6tables=false
busybox_image rung-bb:vm
run() { dk run --rm --network none --runtime=rung-vm "$@" 2>"$DK/err"; }

out=$(run rung-bb:vm sh -c 'uname -r; ls /sys/class/net; exit 3')
st=$?
diag "$out"
check_that "docker run: the guest kernel ($release), exit status 3 (got $st); --network none: loopback alone" \
	'[ $st = 3 ] && [ "$out" = "$release
lo" ] && [ "$release" != "$(uname -r)" ]'
out=$(printf 'one\ntwo\nthree\n' | dk run --rm -i --network none --runtime=rung-vm rung-bb:vm wc -l)
check_eq "-i with piped stdin" 3 "$out"

# The bridge: a web server on its host address answers with the client's
# address, which is the container's (Docker's veth in the container's
# namespace, where QEMU runs), not the host's.
mkdir -p "$DK/www/cgi-bin"
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\nclient %%s\\n" "$REMOTE_ADDR"\n' >"$DK/www/cgi-bin/addr"
chmod +x "$DK/www/cgi-bin/addr"
/bin/busybox httpd -f -p 10.214.0.1:8080 -h "$DK/www" &
srv=$!
out=$(dk run --rm --runtime=rung-vm rung-bb:vm sh -c 'ls /sys/class/net; wget -q -O - http://10.214.0.1:8080/cgi-bin/addr' 2>"$DK/err")
st=$?
diag "$out"
check_that "the bridge: the guest's eth0 reaches the host's bridge address from the container's (got $st)" \
	'[ $st = 0 ] && echo "$out" | grep -qx eth0 && echo "$out" | grep -Eqx "client 10\.214\.0\.([2-9]|[1-9][0-9]+)"'
kill "$srv" 2>/dev/null
srv=

dk run -d --name vm1 --network none --runtime=rung-vm rung-bb:vm \
	sh -c 'trap "echo got-term; exit 0" TERM; echo up; while :; do sleep 1; done' >/dev/null
out=$(dk exec vm1 sh -c 'echo from-exec; exit 4')
st=$?
check_that "docker exec: output and status 4 (got $st)" '[ $st = 4 ] && [ "$out" = from-exec ]'
out=$(dk exec vm1 cat /etc/hostname)
check_eq "Docker's /etc/hostname (a single-file share)" "$(dk inspect -f '{{.Config.Hostname}}' vm1)" "$out"
dk stop vm1 >/dev/null
check_that "docker stop: the init's TERM trap ran" 'dk logs vm1 2>&1 | grep -q got-term'
dk rm vm1 >/dev/null

dk run -d --name vm2 --network none --runtime=rung-vm rung-bb:vm sh -c 'while :; do :; done' >/dev/null
dk rm -f vm2 >/dev/null
check_eq "docker rm -f of a busy VM" "" "$(dk ps -aq)"

stop_dockerd
check_that "no QEMU is left" '! ps -eo args= | grep -v grep | grep -q "qemu-system.*$DK"'
check_that "dockerd, containerd, shims and rung's processes are gone; nothing mounted under the test's root" \
	'! ps -eo args= | grep -F "$DK" | grep -v grep && ! grep -q " $DK" /proc/mounts'
