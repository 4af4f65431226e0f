# bench/ladder.bash: the isolation ladder (issue 9), sourced by bench/run.
#
# The same workloads on every level rung offers and on the peers a user
# would otherwise pick: `bench/run ladder`. A level the machine cannot run is
# probed once and reported `skipped: WHY` (its own error); a workload a level
# cannot run (TCP in a sandbox without networking) is `unsupported: WHY`.
# Except start-true (timed from outside) and idle-memory (PSS), every figure
# is taken inside the level by the same static program (bench/timeit, or the
# workload itself), so a level's start-up stays out of its workload times.
# Variables such as work, rung, pin and quick are bench/run's.
# shellcheck shell=bash disable=SC2034,SC2154

ladder_group="start-true getpid-loop find-10k dd-bs1 shell-200 python-start python-loop gcc-2k \
file-write file-read fork-200m tcp-rr tcp-stream idle-memory"
ladder_levels="native rung-container rung-ptrace rung-systrap rung-hostnet rung-kvm rung-microvm rung-vm \
runc crun bwrap proot uml qemu-microvm docker-runc docker-rung"
# The levels that boot a kernel under TCG run the light workloads only (a
# boot costs 5-10 s, and a gcc build under emulation far more), unless
# --vm-all or KVM; the full VM (q35) runs start-up, getpid and memory.
ladder_vm_light="start-true getpid-loop dd-bs1 shell-200 python-start fork-200m tcp-rr idle-memory"
ladder_q35_light="start-true getpid-loop idle-memory"
# --quick (a few minutes in all): the VM levels start-up only.
ladder_vm_quick="start-true"
ladder_q35_quick="start-true"
ladder_vm_all=0

for w in $ladder_group; do
	printf -v "${w//-/_}_configs" '%s' "$ladder_levels"
	r=""
	for l in $ladder_levels; do
		[ "$l" = native ] || r+="$l/native "
	done
	printf -v "${w//-/_}_ratios" '%s' "$r"
	printf -v "${w//-/_}_setup" '%s' ladder_setup
	printf -v "${w//-/_}_ladder" '%s' 1
done

start_true_desc="start-up of true (cold): a new sandbox, VM or container per run, whole command timed from outside"
start_true_metric=wall
start_true_unit="ms/run"
start_true_scale=1000000

getpid_loop_desc="getpid in a loop (bench/getpid): one system call round trip"
getpid_loop_count="100000 10000 calls"
getpid_loop_metric=ns_per_call
getpid_loop_unit="ns/call"

find_10k_desc="GNU find over 10,000 files (stat of each), timed inside the level"
find_10k_unit="ms/run"
find_10k_scale=1000000
find_10k_check=ladder_find_check

dd_bs1_desc="dd bs=1 count=N from /dev/zero to /dev/null: two system calls per byte"
dd_bs1_count="100000 10000 bytes"
dd_bs1_unit="ms/run"
dd_bs1_scale=1000000

shell_200_desc="sh running a script of 200 commands (builtins, pipelines, command substitutions: fork+exec)"
shell_200_unit="ms/run"
shell_200_scale=1000000
shell_200_check=ladder_sh_check

python_start_desc="python3 -c pass: interpreter start-up"
python_start_unit="ms/run"
python_start_scale=1000000

python_loop_desc="python3: a pure-Python loop of N additions (start-up included)"
python_loop_count="1000000 100000 iterations"
python_loop_unit="ms/run"
python_loop_scale=1000000

gcc_2k_desc="gcc -O2 -c of a generated 2,000-line C file"
gcc_2k_unit="ms/run"
gcc_2k_scale=1000000

file_write_desc="sequential write of N MiB with dd bs=1M into a host directory mounted read-write (no fsync)"
file_write_count="256 32 MiB"
file_write_unit="ms/run"
file_write_scale=1000000
file_write_check=ladder_write_check

file_read_desc="sequential read of an N MiB host file with dd bs=1M (host page cache warm)"
file_read_count="256 32 MiB"
file_read_unit="ms/run"
file_read_scale=1000000

fork_200m_desc="fork of a process with 200 MiB touched; the child writes one page and exits; wait (bench/forkbig)"
fork_200m_count="20 5 forks"
fork_200m_unit="us/fork"
fork_200m_scale=1000

tcp_rr_desc="TCP over loopback: 1-byte request/response round trips (bench/tcp rr)"
tcp_rr_count="10000 1000 round trips"
tcp_rr_unit="us/roundtrip"
tcp_rr_scale=1000

tcp_stream_desc="TCP over loopback: N MiB from client to server in 64 KiB writes (bench/tcp stream)"
tcp_stream_count="256 16 MiB"
tcp_stream_unit="us/MiB"
tcp_stream_scale=1000
tcp_stream_bytes=1048576

idle_memory_desc="memory of an idle sandbox: PSS of every host process it owns (its session and descendants), a sleep inside"
idle_memory_metric=pss
idle_memory_unit="MiB"

ladder_config_desc()
{
	case $1 in
	rung-container) echo "rung do --isolation=container: namespaces and the host kernel, no sentry (level 1)" ;;
	rung-hostnet) echo "rung do --platform systrap --network host: guest sockets are host sockets (TCP only)" ;;
	rung-kvm) echo "rung do --platform kvm (level 2 on KVM)" ;;
	rung-microvm) echo "rung do --isolation=microvm: QEMU -M microvm, host root over 9p (level 3; ${vm_accel:-KVM, or TCG where there is none})" ;;
	rung-vm) echo "rung do --isolation=vm: QEMU -M q35 (level 4; ${vm_accel:-KVM, or TCG where there is none})" ;;
	runc | crun) echo "$1 run of a bundle whose root has the host's /usr and /etc bound read-only" ;;
	bwrap) echo "bubblewrap: --ro-bind / /, --unshare-all (namespaces, no cgroups)" ;;
	proot) echo "PRoot -r /: ptrace-based path translation, no isolation (a ptrace peer)" ;;
	uml) echo "User-mode Linux (Debian's, ptrace), the host's / as root over hostfs (a ptrace kernel peer)" ;;
	qemu-microvm) echo "QEMU -M microvm with rung's guest kernel, a busybox initramfs, no rung (${vm_accel:-KVM or TCG})" ;;
	esac
}

# --- per-level set-up ---------------------------------------------------------

declare -A level_why=()
ladder=""
ladder_setup()
{
	[ -z "$ladder" ] || return 0
	ladder=$work/ladder
	io=$work/io
	mkdir -p "$ladder" "$io"
	fs_setup
	sh_setup
	# The system's python3 (a user's shim under $HOME is not in every level).
	python=/usr/bin/python3
	[ -x "$python" ] || python=$(type -P python3) || python=""
	gccbin=$(type -P gcc) ddbin=$(type -P dd) || gccbin=""
	[ -n "$gccbin" ] && [ -n "$python" ] || {
		echo "bench/run: the ladder needs python3, gcc and dd on \$PATH" >&2
		exit 1
	}
	ladder_gen_c >"$ladder/gen.c"
	# A file to read: written once, natively.
	read -r full short _ <<<"$file_read_count"
	"$ddbin" if=/dev/zero of="$work/fs/read" bs=1M \
		count="${iterations:-$([ "$quick" = 1 ] && echo "$short" || echo "$full")}" 2>/dev/null
	local l
	for l in $ladder_levels; do
		wanted "$l" || continue
		ladder_probe "$l"
		if [ -n "${level_why[$l]:-}" ]; then
			echo "  $l: skipped: ${level_why[$l]}"
		fi
	done
}

# ~2,000 lines of C: 100 functions of ~20 lines each, with loops, switches
# and calls between them, and a main that uses them all.
ladder_gen_c()
{
	local i
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	for ((i = 0; i < 100; i++)); do
		cat <<C
struct s$i { int a, b; char name[16]; double w; };

static int f$i(struct s$i *p, int n)
{
	int acc = $i;

	for (int k = 0; k < n; k++) {
		switch ((k + p->a) % 4) {
		case 0: acc += k * p->b; break;
		case 1: acc ^= (int)(p->w * k); break;
		case 2: acc -= (int)strlen(p->name); break;
		default: acc = acc * 31 + k; break;
		}
	}
	if (acc > 1000)
		acc %= 997;
	return acc$([ "$i" -gt 0 ] && echo " + f$((i - 1))((struct s$((i - 1)) *)p, n / 2)");
}
C
	done
	echo 'int main(void)'
	echo '{'
	echo '	struct s99 v = {1, 2, "x", 0.5};'
	printf '\tprintf("%%d\\n", f99(&v, 10));\n'
	echo '	return 0;'
	echo '}'
}

# The bundle runc and crun run: an empty root with the usual symlinks into
# /usr, the host's /usr and /etc bound read-only, and the work directory
# read-write, so that the same host programs and files are used.
ladder_bundle()
{
	local b=$ladder/bundle d
	[ -d "$b" ] && return 0
	mkdir -p "$b/rootfs"
	for d in bin sbin lib lib64 lib32 libx32; do
		[ -L "/$d" ] && ln -s "$(readlink "/$d")" "$b/rootfs/$d"
	done
	mkdir -p "$b/rootfs/usr" "$b/rootfs/etc" "$b/rootfs/tmp" "$b/rootfs/proc" "$b/rootfs/dev"
	# The work directory sits under /tmp on most hosts: a tmpfs on /tmp
	# first, then the work directory bound onto it.
	(cd "$b" && runc spec) || return 1
	jq --arg work "$work" '
	  .root = {"path": "rootfs", "readonly": true}
	  | .process.terminal = false
	  | .process.cwd = "/"
	  | .mounts += [
	      {"destination": "/usr", "type": "bind", "source": "/usr", "options": ["rbind", "ro"]},
	      {"destination": "/etc", "type": "bind", "source": "/etc", "options": ["rbind", "ro"]},
	      {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]},
	      {"destination": $work, "type": "bind", "source": $work, "options": ["rbind", "rw"]}]
	  | .linux.resources = {}
	  | .linux.namespaces |= map(select(.type != "cgroup"))' \
		"$b/config.json" >"$b/template.json" || return 1
}

# Writes the bundle's config.json to run "$@".
ladder_oci_args()
{
	local args="" a
	for a in "$@"; do
		a=${a//\\/\\\\}
		a=${a//\"/\\\"}
		a=${a//$'\n'/\\n}
		args+="${args:+, }\"${a//$'\t'/\\t}\""
	done
	jq --argjson a "[$args]" '.process.args = $a' "$ladder/bundle/template.json" \
		>"$ladder/bundle/config.json"
}

# prefix=(...): how level $1 runs a host program (host paths, $work visible,
# $io writable). Sets nothing and returns 1 for a level without one.
ladder_prefix()
{
	case $1 in
	native) prefix=() ;;
	rung-container) prefix=("$rung" "do" --isolation=container -v "$io:$io" --) ;;
	rung-ptrace) prefix=("$rung" "do" --platform ptrace -v "$io:$io" --) ;;
	rung-systrap) prefix=("$rung" "do" --platform systrap -v "$io:$io" --) ;;
	rung-kvm) prefix=("$rung" "do" --platform kvm -v "$io:$io" --) ;;
	# The sentry (systrap) with --network host: guest sockets are host
	# sockets (the TCP workloads only; every other one is rung-systrap's).
	rung-hostnet) prefix=("$rung" "do" --platform systrap --network host -v "$io:$io" --) ;;
	rung-microvm) prefix=("$rung" --allow-emulation "do" --isolation=microvm -v "$io:$io" --) ;;
	rung-vm) prefix=("$rung" --allow-emulation "do" --isolation=vm -v "$io:$io" --) ;;
	bwrap) prefix=(bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind "$work" "$work"
		--unshare-all --die-with-parent --) ;;
	proot) prefix=(proot -r /) ;;
	uml) prefix=("$here/uml-run" "$ladder/uml") ;;
	docker-runc | docker-rung)
		prefix=(docker run --rm -i --runtime="${1#docker-}" -v /usr:/usr:ro -v "$work:$work"
			rung-bench:ladder) ;;
	*) return 1 ;;
	esac
}

# Once per level: can it run here? level_why[$1] says why not.
ladder_probe()
{
	local l=$1 out=$ladder/probe
	case $l in
	native) return 0 ;;
	rung-* | qemu-microvm)
		if [ -z "$rung" ]; then
			level_why[$l]="no rung binary"
			return 0
		fi
		;;
	esac
	case $l in
	rung-microvm | rung-vm | qemu-microvm)
		vm_setup_soft
		if [ -n "$vm_why" ]; then
			level_why[$l]=$vm_why
			return 0
		fi
		if [ "$l" = qemu-microvm ]; then
			command -v qemu-system-x86_64 >/dev/null ||
				level_why[$l]="qemu-system-x86_64 is not installed"
			return 0
		fi
		# A quick run spares the probe's boot: its one cell says if it fails.
		[ "$quick" = 0 ] || return 0
		;;
	runc | crun)
		if ! command -v "$l" >/dev/null; then
			level_why[$l]="$l is not installed"
			return 0
		fi
		ladder_bundle || { level_why[$l]="cannot make the bundle (runc spec, jq)"; return 0; }
		ladder_oci_args /usr/bin/true
		if ! "$l" --root "$ladder/state-$l" run -b "$ladder/bundle" "probe-$$" \
			</dev/null >"$out" 2>&1; then
			level_why[$l]="$l run fails here: $(grep -v '^$' "$out" | tail -1)"
		fi
		return 0
		;;
	docker-runc | docker-rung)
		if ! docker info >"$out" 2>&1; then
			level_why[$l]="no docker daemon at ${DOCKER_HOST:-the default socket} ($(grep -v '^$' "$out" | tail -1))"
			return 0
		fi
		if [ "$l" = docker-rung ] && ! grep -q 'Runtimes:.* rung' "$out"; then
			level_why[$l]="the docker daemon has no runtime named rung (rung install)"
			return 0
		fi
		if ! docker image inspect rung-bench:ladder >/dev/null 2>&1; then
			local r=$ladder/docker-root d
			mkdir -p "$r/usr" "$r/tmp"
			for d in bin sbin lib lib64; do
				[ -L "/$d" ] && ln -s "$(readlink "/$d")" "$r/$d"
			done
			tar -C "$r" -c . | docker import - rung-bench:ladder >/dev/null ||
				{ level_why[$l]="docker import fails"; return 0; }
		fi
		;;
	bwrap | proot)
		command -v "$l" >/dev/null || { level_why[$l]="$l is not installed (bench/setup)"; return 0; }
		;;
	uml)
		command -v linux >/dev/null || { level_why[$l]="linux (user-mode-linux) is not installed (bench/setup)"; return 0; }
		;;
	esac
	ladder_prefix "$l"
	if ! "${prefix[@]}" /usr/bin/true </dev/null >"$out" 2>&1; then
		level_why[$l]=$(grep -v '^$' "$out" | grep -v 'warning: microvm' | tail -1)
		level_why[$l]=${level_why[$l]:-exit status $?}
	fi
}

vm_why="" vm_kernel="" vm_soft_done=0
vm_setup_soft()
{
	[ $vm_soft_done = 0 ] || return 0
	vm_soft_done=1
	if ! "$rung" setup-vm >"$work/setup-vm" 2>&1; then
		vm_why="rung setup-vm fails: $(grep -v '^$' "$work/setup-vm" | tail -1)"
		return 0
	fi
	vm_kernel=$(sed -n 's/^kernel: *\([^ ]*\).*/\1/p' "$work/setup-vm")
	vm_accel=$(sed -n 's/^accel: *//p' "$work/setup-vm")
	case $vm_accel in
	KVM*) vm_accel=KVM ;;
	*) vm_accel="TCG emulation: no usable KVM here" ;;
	esac
}

# Is workload $1 run at level $2? Sets skip_why when not.
ladder_runs()
{
	local w=$1 l=$2
	skip_why=""
	if [ -n "${level_why[$l]:-}" ]; then
		skip_why=${level_why[$l]}
		return 1
	fi
	case $l in
	rung-hostnet)
		case $w in
		tcp-rr | tcp-stream) return 0 ;;
		esac
		skip_why="the same as rung-systrap but for sockets: the TCP workloads only"
		return 1
		;;
	rung-microvm | rung-vm)
		# With KVM a boot is short: everything.
		if [ $ladder_vm_all = 1 ] || { [ "$vm_accel" = KVM ] && [ "$quick" = 0 ]; }; then
			return 0
		fi
		local light=$ladder_vm_light
		[ "$l" = rung-vm ] && light=$ladder_q35_light
		if [ "$quick" = 1 ]; then
			light=$ladder_vm_quick
			[ "$l" = rung-vm ] && light=$ladder_q35_quick
		fi
		case " ${light//$'\n'/ } " in
		*" $w "*) return 0 ;;
		esac
		if [ "$quick" = 1 ]; then
			skip_why="a quick run boots the VM levels for start-up only"
		else
			skip_why="VM boots under ${vm_accel%%:*} cost seconds: the light workloads only here (bench/run --vm-all for all)"
		fi
		return 1
		;;
	qemu-microvm)
		case $w in
		start-true) return 0 ;;
		getpid-loop | idle-memory)
			if [ "$quick" = 1 ]; then
				skip_why="a quick run boots the VM levels for start-up only"
				return 1
			fi
			return 0
			;;
		esac
		skip_why="the bare QEMU peer boots a busybox initramfs without the host's files: start-up, getpid and memory only"
		return 1
		;;
	esac
	return 0
}

# cmd=(...) for workload $w at level $1 with count $2, through the level's
# prefix; inner=(...) is what runs inside.
ladder_cmd()
{
	local l=$1 n=$2 inner=()
	if ! ladder_runs "$w" "$l"; then
		cmd=(echo "skipped: $skip_why")
		return 0
	fi
	case $w in
	start-true) inner=(/usr/bin/true) ;;
	getpid-loop) inner=("$work/getpid" "$n") ;;
	find-10k) inner=("$work/timeit" "$findbin" "$fs/tree" -type f -size -100k -printf .) ;;
	dd-bs1) inner=("$work/timeit" "$ddbin" if=/dev/zero of=/dev/null bs=1 count="$n" status=none) ;;
	shell-200) inner=("$work/timeit" "$shbin" "$work/script.sh") ;;
	python-start) inner=("$work/timeit" "$python" -c pass) ;;
	python-loop) inner=("$work/timeit" "$python" -c "s = 0
for i in range($n):
    s += i
assert s == $n * ($n - 1) // 2") ;;
	gcc-2k) inner=("$work/timeit" "$gccbin" -O2 -pipe -c "$ladder/gen.c" -o /dev/null) ;;
	# fullblock: a read of /dev/zero may return less than 1 MiB (in rung's
	# sentry 64 KiB), and dd would then write short blocks.
	file-write) inner=("$work/timeit" "$ddbin" if=/dev/zero of="$io/write-$l" bs=1M count="$n"
		iflag=fullblock status=none) ;;
	file-read) inner=("$work/timeit" "$ddbin" if="$work/fs/read" of=/dev/null bs=1M status=none) ;;
	fork-200m) inner=("$work/forkbig" "$n" 200) ;;
	tcp-rr) inner=("$work/tcp" rr "$n") ;;
	tcp-stream) inner=("$work/tcp" stream "$n") ;;
	idle-memory) inner=("$shbin" -c "touch $io/ready-$l; echo ready; exec sleep 100000") ;;
	esac
	case $l in
	runc | crun)
		ladder_oci_args "${inner[@]}"
		# This runs in run_one's subshell: its pid names the container.
		cmd=("$l" --root "$ladder/state-$l" run -b "$ladder/bundle" "bench-$BASHPID")
		;;
	qemu-microvm)
		case $w in
		start-true) cmd=("$here/qemu-peer" "$work" "$vm_kernel" "$(ladder_qemu_accel)" true) ;;
		getpid-loop) cmd=("$here/qemu-peer" "$work" "$vm_kernel" "$(ladder_qemu_accel)" getpid "$n") ;;
		idle-memory) cmd=("$here/qemu-peer" "$work" "$vm_kernel" "$(ladder_qemu_accel)" idle) ;;
		esac
		;;
	*)
		ladder_prefix "$l"
		cmd=("${prefix[@]}" "${inner[@]}")
		;;
	esac
}

ladder_qemu_accel()
{
	[ "$vm_accel" = KVM ] && echo kvm || echo tcg
}

for w in $ladder_group; do
	eval "${w//-/_}_cmd() { ladder_cmd \"\$@\"; }"
done

# One '.' per file: the walk saw every file.
ladder_find_check()
{
	[ "$(tr -cd . <"$work/stdout" | wc -c)" -eq $((fs_ndirs * fs_nfiles)) ]
}

# The whole file reached the host directory (run_one's config and count).
ladder_write_check()
{
	local got
	got=$(stat -c %s "$io/write-$config" 2>/dev/null || echo 0)
	[ "$got" -eq $((count * 1048576)) ] && return 0
	echo "the host file has $got bytes, not $((count * 1048576))"
	return 1
}

ladder_sh_check()
{
	grep -qx 'done' "$work/stdout"
}

# idle-memory: starts cmd in a session of its own, waits until the sleep
# inside is running (it touches $io/ready-LEVEL, or prints `ready`), lets it
# settle, and prints the PSS in MiB of every process of that session and
# every descendant of it; then kills them (all started here).
ladder_pss()
{
	local l=$1 pid i pids sum
	rm -f "$io/ready-$l"
	setsid "${pin[@]}" "${cmd[@]}" </dev/null >"$work/stdout" 2>"$work/stderr" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$io/ready-$l" ] && break
		grep -q '^ready' "$work/stdout" 2>/dev/null && break
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "ended before it was ready: $(grep -v '^$' "$work/stderr" | tail -1)" \
				>"$work/$w.$l.failed"
			echo failed
			return 0
		fi
		sleep 0.5
	done
	sleep "$([ "$quick" = 1 ] && echo 1 || echo 2)"
	pids=$(ladder_owned "$pid")
	sum=0
	for i in $pids; do
		sum=$((sum + $(awk '/^Pss:/ { s += $2 } END { print s + 0 }' "/proc/$i/smaps_rollup" 2>/dev/null || echo 0)))
	done
	echo "$pids" | tr '\n' ' ' >"$work/$w.$l.pids"
	# All but rung do's cleaner, which removes the sandbox's cgroup once the
	# supervisor is gone, and then ends.
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $(for i in $pids; do
		[ "$(cat "/proc/$i/comm" 2>/dev/null)" = rung-cgclean ] || echo "$i"
	done) 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	case $l in
	runc | crun)
		"$l" --root "$ladder/state-$l" list -q 2>/dev/null | while read -r i; do
			"$l" --root "$ladder/state-$l" delete -f "$i" >/dev/null 2>&1 || true
		done
		;;
	esac
	awk -v k="$sum" 'BEGIN { printf "%.2f\n", k / 1024 }'
}

# The processes of session $1 and the descendants of $1.
ladder_owned()
{
	local root=$1
	ps -e -o pid=,ppid=,sid= | awk -v r="$root" '
		{ pid[NR] = $1; ppid[$1] = $2; sid[$1] = $3 }
		END {
			for (i = 1; i <= NR; i++) {
				p = pid[i]; own = (sid[p] == r)
				for (q = p; !own && q > 1; q = ppid[q]) if (q == r) own = 1
				if (own) print p
			}
		}'
}
