#!/bin/sh
# shellcheck disable=SC1010,SC2016,SC2034 # `do` is rung's subcommand; check_that expands (and uses) later
# Isolation: a guest (tests/e2e/isolation.c) makes system calls that would
# change or read the host if they reached the host kernel: kill a canary
# process, mount, reboot, unlink/chmod/rename a canary file, raw sockets,
# the int $0x80 and x32 ABIs, and at last kill(-1, SIGKILL). Each must
# fail in the guest, run with no host files at all (rung do --host-exec),
# and again with the host's / as the sandbox's root (rung do's default:
# read-only or under a sandbox-private overlay, so file operations on host
# paths may work in there). The host is checked afterwards: the canary
# process lives, the canary file is intact, nothing was mounted, the host
# name is unchanged, and no file the guest made is on the host.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
ISO=$E2E_BIN/isolation
plan 23

if [ ! -x "$ISO" ]; then
	for _ in $(seq 23); do skip "no $ISO (make check builds it)"; done
	exit 0
fi

dir=$E2E_TMP/host
mkdir -p "$dir/scratch"
printf 'canary %s\n' "$$" >"$dir/canary"
chmod 640 "$dir/canary"
canary_sum="$(cksum <"$dir/canary") $(stat -c %a "$dir/canary")"
tmp_file=/tmp/rung-isolation-$$
shm_file=/dev/shm/rung-isolation-$$
rm -f "$tmp_file" "$shm_file"
names="$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
host_mounts_hold -s # no docker.sh mounting overlays meanwhile
cat /proc/self/mountinfo >"$E2E_TMP/mounts.before"
sleep 600 &
canary=$!

# phase NAME MODE SANDBOX_FILE [RUNG DO OPTIONS...]: run the guest; checks
# that it ran to its end, that nothing escaped, that the sandbox file was
# made in the sandbox; leaves the output in $E2E_TMP/NAME.out, status in $st.
phase() {
	name=$1 mode=$2 sbfile=$3
	shift 3
	out=$E2E_TMP/$name.out
	rung do "$@" -- "$ISO" "$canary" "$dir/canary" "$dir/scratch" "$mode" "$sbfile" \
		>"$out" 2>"$E2E_TMP/$name.err" </dev/null
	st=$?
	contains "$out" '^summary: [0-9]+ denied, 0 escaped$' || st="$st, no summary"
	check_eq "$name: the guest ran to its end and exits 0 (nothing escaped)" 0 "$st"
	if contains "$out" '^ESCAPED'; then
		not_ok "$name: every attempt was denied"
		grep '^ESCAPED' "$out" | sed 's/^/# /'
	else
		ok "$name: every attempt was denied"
	fi
	denied=$(grep -c '^denied:' "$out")
	check "$name: at least 35 attempts were made and denied ($denied)" [ "$denied" -ge 35 ]
	check "$name: the guest made a file in its own writable file system" \
		contains "$out" "^sandbox file $sbfile: created"
	[ "$st" = 0 ] || sed 's/^/# guest: /' "$out" "$E2E_TMP/$name.err" | head -80
}

phase host-exec hidden "$tmp_file" --host-exec
out=$E2E_TMP/host-exec.out
check "host-exec: kill(canary, SIGKILL) was denied" contains "$out" '^denied: kill\(canary, SIGKILL\)'
check "host-exec: mount was denied" contains "$out" '^denied: mount\(tmpfs, scratch\)'
check "host-exec: reboot with a bad magic number was denied" contains "$out" '^denied: reboot'
check "host-exec: a raw socket was denied" contains "$out" '^denied: socket\(AF_INET, SOCK_RAW\)'
check "host-exec: no host file is visible (open(/etc/passwd) was denied)" \
	contains "$out" '^denied: open\(/etc/passwd\)'

phase rootfs rootfs "$shm_file"
check "rootfs: the guest sees the host's files (open(/etc/passwd) works)" \
	contains "$E2E_TMP/rootfs.out" '^contained: open\(/etc/passwd\)$'

# The host, afterwards.
check "the canary process is alive" kill -0 "$canary"
check_eq "the canary file is intact (content and mode)" "$canary_sum" \
	"$(cksum <"$dir/canary" 2>&1) $(stat -c %a "$dir/canary" 2>&1)"
check_eq "nothing appeared in the scratch directory or next to the canary" \
	"./canary ./scratch " "$(cd "$dir" && find . -mindepth 1 | sort | tr '\n' ' ')"
cat /proc/self/mountinfo >"$E2E_TMP/mounts.after"
if cmp -s "$E2E_TMP/mounts.before" "$E2E_TMP/mounts.after"; then
	ok "the host's mounts are unchanged"
else
	not_ok "the host's mounts are unchanged"
	diff "$E2E_TMP/mounts.before" "$E2E_TMP/mounts.after" | sed 's/^/# /'
fi
check_eq "host and domain name are unchanged" "$names" \
	"$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
check_that "the files the guest made in its /tmp and /dev/shm are not on the host" \
	'[ ! -e "$tmp_file" ] && [ ! -e "$shm_file" ]'
rm -f "$tmp_file" "$shm_file"

# --- kill(-1, SIGKILL) ---------------------------------------------------------
# In a PID namespace of its own when the host allows one, so that even a
# broken sandbox could only kill that namespace's processes (and an inner
# canary tells); the guest itself tries only if nothing escaped before.
if grep -q '^ESCAPED' "$E2E_TMP/host-exec.out" "$E2E_TMP/rootfs.out" ||
	! contains "$E2E_TMP/host-exec.out" '^summary'; then
	not_ok "kill(-1, SIGKILL) does not reach the host: not tried, as something escaped"
	not_ok "kill(-1, SIGKILL) fails in the guest: not tried"
else
	if unshare --pid --fork true 2>/dev/null; then
		where=" (in a PID namespace)"
		unshare --pid --fork sh -c '
			sleep 600 & inner=$!
			timeout -k 5 "$1" "$2" do --host-exec -- "$3" "$inner" "$4" "$5" \
				hidden,killall >"$6" 2>&1 </dev/null
			st=$?
			kill -0 "$inner" || st="$st, the inner canary died"
			kill "$inner"
			wait "$inner" 2>/dev/null
			echo "$st" >"$6.st"' sh "$E2E_TIMEOUT" "$RUNG" "$ISO" "$dir/canary" \
			"$dir/scratch" "$E2E_TMP/killall.out"
		st=$(cat "$E2E_TMP/killall.out.st")
	else
		where=
		rung do --host-exec -- "$ISO" "$canary" "$dir/canary" "$dir/scratch" hidden,killall \
			>"$E2E_TMP/killall.out" 2>&1 </dev/null
		st=$?
	fi
	alive=
	case $st in
	*canary*) ;;
	*) kill -0 "$canary" && alive=1 ;;
	esac
	check_that "kill(-1, SIGKILL) does not reach the host$where" '[ -n "$alive" ]'
	# Linux never signals the caller itself; alone in its PID namespace, the
	# guest gets ESRCH and lives on.
	check_that "kill(-1, SIGKILL) fails in the guest (ESRCH) and the guest lives on (status $st)" \
		'[ "$st" = 0 ] && contains "$E2E_TMP/killall.out" "^denied: kill\(-1, SIGKILL\) \(ESRCH\)"'
	[ "$st" = 0 ] || sed 's/^/# guest: /' "$E2E_TMP/killall.out" | tail -5
fi

kill "$canary"
wait "$canary" 2>/dev/null
check_clean "the isolation guest"
