#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; $vars are for busybox sh
# Debian's static busybox in the sandbox: output and exit statuses. The
# fixed cases of the issue, then applets that need only what the sentry
# implements, each compared with the same command run natively (same
# arguments, same stdin, same environment).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
BB=/bin/busybox
T=$E2E_TMP
plan 41
if ! file -L "$BB" 2>/dev/null | grep -q 'statically linked' && ! ldd "$BB" 2>&1 | grep -q 'not a dynamic'; then
	for _ in $(seq 41); do skip "no static busybox at $BB (apt-get install busybox-static)"; done
	exit 0
fi

out=$(rung do -- "$BB" echo hello)
check_eq "busybox echo hello prints hello" hello "$out"
rung do -- "$BB" true
check_eq "busybox true exits 0" 0 $?
rung do -- "$BB" false
check_eq "busybox false exits 1" 1 $?
rung do -- "$BB" sh -c 'exit 3'
check_eq "busybox sh -c 'exit 3' exits 3" 3 $?
out=$(rung do -- "$BB" sh -c 'i=0; while [ $i -lt 100 ]; do i=$((i+1)); done; echo $i')
check_eq "a busybox sh loop counts to 100" 100 "$out"
out=$(rung do -- "$BB" seq 1 5 | tr '\n' ' ')
check_eq "busybox seq 1 5" "1 2 3 4 5 " "$out"
out=$(rung do -- "$BB" uname -m)
check_eq "busybox uname -m" x86_64 "$out"

# same DESCRIPTION ARGS...: busybox ARGS natively and in the sandbox print
# the same and exit the same. Stdin is $T/stdin.
printf 'first line\nsecond line\nthird\n' >"$T/stdin"
same() {
	d=$1
	shift
	env -i PATH=/usr/bin:/bin LANG=C "$BB" "$@" <"$T/stdin" >"$T/native" 2>&1
	ns=$?
	env -i PATH=/usr/bin:/bin LANG=C timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do -- "$BB" "$@" \
		<"$T/stdin" >"$T/rung" 2>&1
	rs=$?
	if [ "$ns" = "$rs" ] && cmp -s "$T/native" "$T/rung"; then
		ok "$d (status $rs)"
	else
		not_ok "$d: status native $ns, rung $rs"
		diff "$T/native" "$T/rung" | sed 's/^/# /' | head -20
	fi
}
same "uname -s" uname -s
same "printf with formats" printf '%s-%d-%x-%5.2f\n' a 5 255 3.14159
same "seq -s, 10" seq -s, 10
same "expr arithmetic" expr 6 \* 7
same "basename" basename /a/b/c.txt .txt
same "dirname" dirname /a/b/c
same "test 3 -gt 2" test 3 -gt 2
same "test 2 -gt 3 fails" test 2 -gt 3
same "factor 360" factor 360
same "tr from stdin" tr a-z A-Z
same "wc from stdin" wc -l -w -c
same "cat from stdin" cat
same "md5sum of stdin" md5sum
same "sort -r of stdin" sort -r
same "head -n 2 of stdin" head -n 2
same "head -c 7 of stdin" head -c 7
same "sh for loop" sh -c 'for i in 1 2 3; do echo "item $i"; done'
same "sh case" sh -c 'case foo in f*) echo match ;; *) echo no ;; esac'
same "sh function status" sh -c 'f() { return 4; }; f; echo $?'
same "sh arithmetic" sh -c 'echo $((1 << 20)) $((7 * 6)) $((-5 / 2))'
same "sh positional parameters" sh -c 'set -- a b "c d"; echo $# "$3"' x
same "sh exit 300 is 44" sh -c 'exit 300'
same "sh string operations" sh -c 'v=abcdef; echo ${#v} ${v#ab} ${v%ef}'
same "date of the epoch, UTC" date -u -d @0 +%Y-%m-%dT%H:%M:%S
same "sleep 0" sleep 0
same "id -u" id -u
same "a missing applet option fails" seq --no-such-option

# The sandbox's root is the host's / (read-only, or under an overlay of the
# sandbox's own); its /dev/shm (and with --host-exec, its /tmp) is its own.
# Whatever the guest writes, the host must not see it. The shell reads a
# file back with `.` (cat would need fork).
f=rung-busybox-$$
rm -f "/dev/shm/$f" "/tmp/$f"
out=$(rung do -- "$BB" sh -c "echo 'echo sandboxed' >/dev/shm/$f && . /dev/shm/$f")
check_eq "busybox writes and reads a file in the sandbox's /dev/shm" sandboxed "$out"
check "... which the host's /dev/shm does not have" [ ! -e "/dev/shm/$f" ]
out=$(rung do -- "$BB" sh -c "echo 'echo sandboxed' >/tmp/$f && . /tmp/$f" 2>&1)
check_that "writing to the root's /tmp either works in the sandbox or is refused" \
	'[ "$out" = sandboxed ] || echo "$out" | grep -q "Read-only file system"'
check "... and the host's /tmp does not have the file" [ ! -e "/tmp/$f" ]
out=$(rung do --host-exec -- "$BB" sh -c "echo 'echo sandboxed' >/tmp/$f && . /tmp/$f")
check_eq "with --host-exec, busybox writes and reads a file in the sandbox's /tmp" sandboxed "$out"
check "... which the host's /tmp does not have" [ ! -e "/tmp/$f" ]
rm -f "/dev/shm/$f" "/tmp/$f"

check_clean "the busybox tests"
