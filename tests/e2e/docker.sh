#!/bin/sh
# shellcheck disable=SC2016 # $vars in single quotes are for the container's sh
# Docker end to end: a dockerd of the test's own (private data root, exec
# root, socket and bridge; its own supervised containerd) runs containers
# with --runtime=rung, and each check compares what the user sees with what
# runc gives on the same machine. Then containerd alone (ctr --runc-binary)
# and podman where it runs. Set RUNG_DOCKER_ISOLATION=container to run the
# same checks at isolation level 1 (docker_container.sh does).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
PLAN=34
ISOLATION=${RUNG_DOCKER_ISOLATION:-}
netns_own "$@"
own=$?
plan $PLAN
[ $own = 0 ] || skip_all "dockerd runs in a network namespace of the test's own: needs root, ip(8), nsenter(1)"

# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/dockerd.sh"
dockerd_require
command -v ip >/dev/null || skip_all "no ip(8) to make the test's bridge"

BR=rungdk0
ip link del "$BR" 2>/dev/null
ip link add "$BR" type bridge && ip addr add 10.213.0.1/24 dev "$BR" && ip link set "$BR" up ||
	skip_all "cannot make a bridge (no CAP_NET_ADMIN?)"
dockerd_cleanup() { ip link del "$BR" 2>/dev/null; }

RT=rung
if [ -n "$ISOLATION" ]; then
	# runtimeArgs come before rung's global flags, as Docker's wrapper script
	# passes them (oci-contract.md, runtimeArgs).
	printf '{"runtimes":{"rung":{"path":"%s","runtimeArgs":["--isolation=%s"]}}}\n' \
		"$RUNG_ABS" "$ISOLATION" >"$DK/daemon.json"
else
	printf '{"runtimes":{"rung":{"path":"%s"}}}\n' "$RUNG_ABS" >"$DK/daemon.json"
fi
dockerd_start "$DK/daemon.json" --bridge "$BR"

# Images: busybox from Debian's static busybox, and a small Debian image of
# the host's own dynamically linked bash and coreutils with their libraries.
busybox_image rung-bb:test
deb=$DK/deb
mkdir -p "$deb/tmp" "$deb/proc" "$deb/sys" "$deb/dev" "$deb/etc"
for b in /bin/bash /bin/ls /bin/cat /usr/bin/id /usr/bin/wc /usr/bin/stat; do
	for f in $b $(ldd "$b" | grep -o '/[^ ]*'); do
		mkdir -p "$deb$(dirname "$f")"
		cp -L "$f" "$deb$f"
	done
done
cp /etc/debian_version "$deb/etc/"
tar -C "$deb" -c . | dk import - rung-deb:test >/dev/null
# run ARGS...: docker run --rm with rung, output and status kept.
run() { dk run --rm --runtime="$RT" "$@" 2>"$DK/err"; }

out=$(run rung-bb:test echo hello from rung)
check_eq "docker run echo" "hello from rung" "$out"
cmd='echo "$BASH_VERSION"; cat /etc/debian_version; ls / | wc -l; id -u'
out=$(run rung-deb:test bash -c "$cmd")
want=$(chroot "$deb" /bin/bash -c "$cmd")
check_eq "a dynamically linked Debian bash in a docker import image" "$want" "$out"
run rung-bb:test true
check_eq "exit status 0" 0 $?
run rung-bb:test sh -c 'exit 3'
check_eq "exit status 3" 3 $?
run rung-bb:test no-such-program
st=$?
check_that "a missing executable is Docker's 127 with runc's words (got $st)" \
	'[ $st = 127 ] && contains "$DK/err" "executable file not found"'
out=$(printf 'one\ntwo\nthree\n' | dk run --rm -i --runtime="$RT" rung-bb:test wc -l)
check_eq "-i with piped stdin" 3 "$out"
out=$(run -u 1000:1000 -w /tmp -e FOO=bar rung-bb:test sh -c 'echo $(id -u):$(id -g) $(pwd) $FOO')
check_eq "-u 1000:1000, -w /tmp, -e FOO=bar" "1000:1000 /tmp bar" "$out"
out=$(run --hostname rungbox rung-bb:test hostname)
check_eq "--hostname" rungbox "$out"
out=$(run --tmpfs /scratch rung-bb:test sh -c 'echo a >/scratch/f && cat /scratch/f && grep -c " /scratch tmpfs" /proc/mounts')
check_eq "--tmpfs: writable, and a tmpfs in /proc/mounts" "a
1" "$out"
run --read-only rung-bb:test sh -c 'echo x >/x'
st=$?
check_that "--read-only: writing the root fails (status $st)" '[ $st != 0 ] && contains "$DK/err" "Read-only file system"'

# A bind mount is the host's live directory: what the host writes after
# the container started is what the container reads.
mkdir -p "$DK/vol"
echo before >"$DK/vol/f"
dk run -d --name bind --runtime="$RT" -v "$DK/vol:/vol" rung-bb:test sleep 1000 >/dev/null
echo after >"$DK/vol/f"
out=$(dk exec bind cat /vol/f)
dk exec bind sh -c 'echo from-guest >/vol/g'
check_that "-v bind mount: a host change is seen inside, a guest write reaches the host" \
	'[ "$out" = after ] && [ "$(cat "$DK/vol/g" 2>/dev/null)" = from-guest ]'
dk rm -f bind >/dev/null

run --network none rung-bb:test true
check_eq "--network none" 0 $?
run rung-bb:test sh -c 'for i in $(seq 20); do sleep 1 & done; wait'
st=$?
run --pids-limit 8 rung-bb:test sh -c 'for i in $(seq 20); do sleep 1 & done; wait'
st2=$?
check_that "--pids-limit 8: 20 concurrent sleeps run, but not under the limit (status $st, $st2)" \
	'[ $st = 0 ] && [ $st2 != 0 ] && contains "$DK/err" "fork"'
# 200 MiB held by tail (one line without a newline): fine unlimited, but
# not under --memory 64m: tail is OOM-killed (SIGKILL, which the shell
# reports as 137) and the container goes on, as with runc: at level 1 by
# the kernel's OOM killer, in the sentry by its own (the guest's limit is
# below the cgroup's, sandbox_guest_memory).
mem_cmd='head -c 200000000 /dev/zero | tail >/dev/null; echo "tail $?"'
out=$(run rung-bb:test sh -c "$mem_cmd")
st=$?
out2=$(run --memory 64m --memory-swap 64m rung-bb:test sh -c "$mem_cmd")
st2=$?
check_that "--memory 64m: tail, holding 200 MiB, is OOM-killed, the container goes on (unlimited: $st $out, limited: $st2 $out2)" \
	'[ $st = 0 ] && [ "$out" = "tail 0" ] && [ $st2 = 0 ] && [ "$out2" = "tail 137" ]'
# A tmpfs is the sandbox's memory (level 1's is the host kernel's tmpfs,
# charged to the container's cgroup as with runc).
if [ -z "$ISOLATION" ]; then
	out=$(run --memory 64m --tmpfs /tmp rung-bb:test sh -c 'dd if=/dev/zero of=/tmp/f bs=1M count=512 2>&1; echo "dd: $?"; grep MemTotal /proc/meminfo')
	check_that "--memory 64m: writing 512 MiB to a --tmpfs is ENOSPC, the guest sees less than 64 MiB" \
		'echo "$out" | grep -q "No space left on device" && echo "$out" | grep -q "^dd: 1\$" &&
		 [ "$(echo "$out" | awk "/^MemTotal:/ { print \$2 }")" -lt 65536 ]'
else
	skip "--memory and a --tmpfs at level $ISOLATION: the host kernel's tmpfs"
fi

# A long-running container: exec, top, stats, signals, pause.
dk run -d --name t1 --runtime="$RT" rung-bb:test sh -c \
	'trap "echo got-usr1" USR1; trap "exit 143" TERM; i=0; while :; do i=$((i+1)); echo $i; echo $i >/tmp/count; sleep 0.1; done' \
	>/dev/null
check_eq "docker run -d: running" running "$(dk inspect -f '{{.State.Status}}' t1)"
t1_id=$(dk inspect -f '{{.Id}}' t1)
out=$(dk exec t1 sh -c 'echo exec-out; exit 5')
st=$?
check_that "docker exec: output and exit status 5 (got $st)" '[ $st = 5 ] && [ "$out" = exec-out ]'
dk exec t1 no-such-program >"$DK/err" 2>&1
st=$?
check_that "docker exec of a missing program: 126 as with runc, runc's words (got $st)" \
	'[ $st = 126 ] && contains "$DK/err" "executable file not found"'
out=$(printf 'piped' | dk exec -i t1 cat)
check_eq "docker exec -i" piped "$out"
pids=$(dk top t1 -o pid | tail -n +2 | tr '\n' ' ')
init=$(dk inspect -f '{{.State.Pid}}' t1)
check_that "docker top lists the sandbox's host processes ($pids; init $init)" \
	'case " $pids" in *" $init "*) true ;; *) false ;; esac'
mem=$(dk stats --no-stream --format '{{.MemUsage}}' t1 | cut -d/ -f1)
check_that "docker stats: non-zero memory ($mem)" 'echo "$mem" | grep -Eq "^[0-9.]*[1-9][0-9.]*[KMG]i?B"'
# (A container of its own: its init must not be the one that cannot fork.)
dk run -d --name tp --runtime="$RT" rung-bb:test sleep 1000 >/dev/null
dk update --pids-limit 8 tp >/dev/null
dk exec tp sh -c 'for i in $(seq 12); do sleep 1 & done; wait' >"$DK/err" 2>&1
st=$?
check_that "docker update --pids-limit 8: the guest's task limit follows (status $st)" \
	'[ $st != 0 ] && contains "$DK/err" "fork"'
dk rm -f tp >/dev/null
dk kill -s USR1 t1 >/dev/null
i=0
until dk logs t1 2>&1 | grep -q got-usr1 || [ $i -gt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_that "docker kill -s USR1 reaches the init's handler" 'dk logs t1 2>&1 | grep -q got-usr1'
dk pause t1 >/dev/null
a=$(dk exec t1 cat /tmp/count 2>/dev/null)
paused=$(dk inspect -f '{{.State.Paused}}' t1)
n1=$(cat "$DK/data/containers/"*/*-json.log 2>/dev/null | wc -c)
sleep 1
n2=$(cat "$DK/data/containers/"*/*-json.log 2>/dev/null | wc -c)
dk unpause t1 >/dev/null
# (Counted in the log: /tmp/count is empty for a moment at each rewrite.)
c1=$(dk logs t1 2>&1 | wc -l)
sleep 1
c2=$(dk logs t1 2>&1 | wc -l)
check_that "pause freezes the guest, unpause thaws it (paused=$paused, log lines $c1 -> $c2)" \
	'[ "$paused" = true ] && [ -z "$a" ] && [ "$n1" = "$n2" ] && [ "$c2" -gt "$c1" ]'
dk stop -t 10 t1 >/dev/null
check_eq "docker stop: the init's TERM handler exits 143" 143 "$(dk inspect -f '{{.State.ExitCode}}' t1)"
dk rm t1 >/dev/null
dk run -d --name t2 --runtime="$RT" rung-bb:test sleep 1000 >/dev/null
dk stop -t 1 t2 >/dev/null
check_eq "docker stop of an init without a TERM handler: SIGKILL, 137" 137 \
	"$(dk inspect -f '{{.State.ExitCode}}' t2)"
dk rm t2 >/dev/null
dk run -d --name t3 --runtime="$RT" rung-bb:test sleep 1000 >/dev/null
dk kill t3 >/dev/null
dk wait t3 >/dev/null
check_eq "docker kill: 137" 137 "$(dk inspect -f '{{.State.ExitCode}}' t3)"
dk start t3 >/dev/null
check_eq "docker start of an exited container (a new create with the same id)" running \
	"$(dk inspect -f '{{.State.Status}}' t3)"
dk rm -f t3 >/dev/null

# Terminals, under script(1) so that docker has one.
out=$(script -qec "$DOCKER -H unix://$DK/sock run --rm -t --runtime=$RT rung-bb:test sh -c 'test -t 0 && test -t 1 && echo is-a-tty; exit 7'" /dev/null)
st=$?
check_that "docker run -t: a terminal in the guest, status 7 (got $st)" \
	'[ $st = 7 ] && echo "$out" | grep -q is-a-tty'
dk run -d --name t4 --runtime="$RT" rung-bb:test sleep 1000 >/dev/null
out=$(script -qec "$DOCKER -H unix://$DK/sock exec -it t4 sh -c 'test -t 0 && echo is-a-tty; exit 4'" /dev/null)
st=$?
check_that "docker exec -it: a terminal, status 4 (got $st)" '[ $st = 4 ] && echo "$out" | grep -q is-a-tty'
dk rm -f t4 >/dev/null

# The processes Docker ran with rung are gone with the containers.
left=$(ps -eo pid=,args= | grep -F "$RUNG_ABS" | grep -F "$DK" | grep -v grep)
cgroups=$(ls -d /sys/fs/cgroup/*"$E2E_CGROUP/$t1_id" /sys/fs/cgroup"$E2E_CGROUP/$t1_id" 2>/dev/null)
check_eq "no rung process and no cgroup left once the containers are removed" "" "$left$cgroups"

# containerd alone: ctr with rung as the runc binary.
# (The test's own containerd, never the host's; the container's cgroup, its
# runtime's state and its FIFOs are the test's.)
CTR_SOCK=$DK/exec/containerd/containerd.sock
ctr() { timeout -k 5 90 /usr/bin/ctr -a "$CTR_SOCK" -n rung-e2e "$@"; }
if [ -S "$CTR_SOCK" ] && command -v /usr/bin/ctr >/dev/null &&
	dk save rung-bb:test | ctr image import - >/dev/null 2>&1; then
	out=$(ctr run --rm --runc-binary "$RUNG_ABS" --runc-root "$DK/ctr-state" --fifo-dir "$DK/ctr-fifo" \
		--cgroup "$E2E_CGROUP/ctr" docker.io/library/rung-bb:test rung-ctr sh -c 'echo from-ctr; exit 6')
	st=$?
	check_that "ctr run --runc-binary rung: output and status 6 (got $st)" '[ $st = 6 ] && [ "$out" = from-ctr ]'
	ctr image rm docker.io/library/rung-bb:test >/dev/null 2>&1
	ctr namespaces rm rung-e2e >/dev/null 2>&1
else
	skip "ctr cannot import into containerd"
fi
# podman with storage, state and cgroups of the test's own, no network
# (its default one is a bridge with iptables rules) and no event log.
PM=$DK/podman
pm() {
	timeout 90 podman --root "$PM/root" --runroot "$PM/run" --tmpdir "$PM/tmp" \
		--cgroup-manager cgroupfs --events-backend none "$@"
}
if ! command -v podman >/dev/null; then
	skip "podman is not installed"
elif ! tar -C "$bb" -c . | pm import - rung-bb:test >"$DK/podman.err" 2>&1; then
	skip "podman cannot import an image here: $(tail -1 "$DK/podman.err")"
else
	out=$(pm --runtime "$RUNG_ABS" --runtime-flag "root=$PM/rung" run --rm --network none \
		--cgroup-parent "$E2E_CGROUP/podman" localhost/rung-bb:test echo from-podman 2>&1 </dev/null)
	pm rmi -f localhost/rung-bb:test >/dev/null 2>&1
	check_eq "podman --runtime rung" from-podman "$out"
fi

stop_dockerd
# Every process of this test names $DK in its arguments (dockerd, containerd,
# shims, rung's sandboxes and gofers; stubs die with their sandbox), so
# this is lib.sh's check_clean for it, blind to other tests' sandboxes.
check_that "dockerd, containerd, shims and rung's processes are gone; nothing mounted under the test's root" \
	'! ps -eo args= | grep -F "$DK" | grep -v grep && ! grep -q " $DK" /proc/mounts'
