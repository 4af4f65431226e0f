#!/bin/sh
# shellcheck disable=SC2016 # $vars are for the container's shell
# OCI bundles with a linux.seccomp section: the profile is compiled with
# libseccomp and runs in the sentry on the container's processes. A profile
# shaped like Docker's default (ERRNO default with defaultErrnoRet 1, an
# allow list that includes names libseccomp does not know and i386-only
# ones, conditions on arguments, several rules on one argument, a masked
# clone rule, x86/x32 architectures) loads; mkdir is then EPERM, a rule's
# errnoRet is its errno, argument conditions decide, KILL_PROCESS ends the
# container with 128+SIGSYS, processes added by exec are filtered too; a
# user without no_new_privs or CAP_SYS_ADMIN may not add a filter of its
# own (EACCES) until it sets no_new_privs. A profile rung cannot honour is
# refused at create, naming the field.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
BB=/bin/busybox
T=$E2E_TMP
PLAN=21
plan $PLAN

if [ ! -x "$BB" ] || ! "$BB" --list 2>/dev/null | grep -qx unshare; then
	for _ in $(seq $PLAN); do skip "no static busybox with unshare at $BB"; done
	exit 0
fi
if [ ! -x "$E2E_BIN/seccomp_probe" ]; then
	for _ in $(seq $PLAN); do skip "$E2E_BIN/seccomp_probe is not built"; done
	exit 0
fi

ROOT=$T/state
B=$T/bundle
mkdir -p "$B/rootfs/bin" "$B/rootfs/tmp" "$B/rootfs/proc" "$ROOT"
cp "$BB" "$B/rootfs/bin/busybox"
cp "$E2E_BIN/seccomp_probe" "$B/rootfs/bin/seccomp_probe"

# Every x86-64 system call name rung knows, but those the profile treats
# on their own.
special='mkdir|mkdirat|rmdir|kill|socket|personality|clone|clone3|unshare|sethostname'
names=$("$RUNG" help syscalls | awk -v re="^($special)\$" \
	'$1 ~ /^[0-9]+$/ && $2 !~ re { printf "%s\"%s\"", sep, $2; sep = ", " }')

# config USER NNP ARGS_JSON SECCOMP_JSON: write the bundle's config.json.
config() {
	cat >"$B/config.json" <<EOF
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": {"uid": $1, "gid": $1},
		"args": $3,
		"env": ["PATH=/bin"],
		"cwd": "/",
		"noNewPrivileges": $2
	},
	"root": {"path": "rootfs", "readonly": false},
	"hostname": "seccomp",
	"mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
	"linux": {
		"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}],
		"cgroupsPath": "$E2E_CGROUP/seccomp",
		"seccomp": $4
	}
}
EOF
}

DOCKERISH='{
	"defaultAction": "SCMP_ACT_ERRNO",
	"defaultErrnoRet": 1,
	"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
	"syscalls": [
		{"names": ['"$names"', "socketcall", "_llseek", "no_such_syscall_at_all"],
		 "action": "SCMP_ACT_ALLOW"},
		{"names": ["socket"], "action": "SCMP_ACT_ALLOW",
		 "args": [{"index": 0, "value": 40, "op": "SCMP_CMP_NE"}]},
		{"names": ["personality"], "action": "SCMP_ACT_ALLOW",
		 "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_EQ"}]},
		{"names": ["personality"], "action": "SCMP_ACT_ALLOW",
		 "args": [{"index": 0, "value": 4294967295, "op": "SCMP_CMP_EQ"}]},
		{"names": ["kill"], "action": "SCMP_ACT_ALLOW",
		 "args": [{"index": 1, "value": 0, "op": "SCMP_CMP_EQ"},
			  {"index": 1, "value": 15, "op": "SCMP_CMP_EQ"}]},
		{"names": ["clone"], "action": "SCMP_ACT_ALLOW",
		 "args": [{"index": 0, "value": 2114060288, "op": "SCMP_CMP_MASKED_EQ"}]},
		{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
		{"names": ["rmdir"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13},
		{"names": ["sethostname"], "action": "SCMP_ACT_KILL_PROCESS"},
		{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO"}
	]
}'

# run ID: rung run of the bundle; $out, $err and $st.
run() {
	rung --root "$ROOT" run --bundle "$B" "$1" >"$T/out" 2>"$T/err" </dev/null
	st=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# --- a profile shaped like Docker's default ----------------------------------------
config 0 true '["/bin/busybox", "sh", "-c", "mkdir /tmp/x; echo mkdir=$?; [ -d /tmp/x ] || echo absent; rmdir /tmp; echo rmdir=$?; kill -0 $$ && echo kill0=ok; kill -HUP $$; echo hup=$?; /bin/busybox unshare -n true; echo unshare=$?; grep -E \"^(Seccomp|NoNewPrivs)\" /proc/self/status"]' "$DOCKERISH"
run dockerish
check_eq "the Docker-shaped profile loads and the container exits 0" 0 "$st"
check_that "mkdir fails (exit 1)" 'contains "$T/out" "^mkdir=1$"'
check_that "... with EPERM, and nothing is made" \
	'contains "$T/err" "mkdir.*Operation not permitted" && contains "$T/out" "^absent$"'
check_that "a rule's errnoRet 13 makes rmdir EACCES" \
	'contains "$T/err" "rmdir.*Permission denied" && contains "$T/out" "^rmdir=1$"'
check_that "kill with signal 0 passes its argument condition" 'contains "$T/out" "^kill0=ok$"'
check_that "kill with SIGHUP does not (the default EPERM)" \
	'contains "$T/out" "^hup=1$" && contains "$T/err" "kill.*Operation not permitted"'
check_that "unshare is not allowed" 'contains "$T/out" "^unshare=1$"'
check_that "/proc/self/status: Seccomp 2 with one filter, NoNewPrivs 1" \
	'contains "$T/out" "^Seccomp:.2$" && contains "$T/out" "^Seccomp_filters:.1$" &&
	 contains "$T/out" "^NoNewPrivs:.1$"'
[ "$st" = 0 ] || diag "$out" "$err"

config 0 true '["/bin/busybox", "hostname", "other"]' "$DOCKERISH"
run killed
check_eq "SCMP_ACT_KILL_PROCESS ends the container with 128+SIGSYS" 159 "$st"

# --- exec: processes added later get the profile too --------------------------------
config 0 true '["/bin/busybox", "sleep", "30"]' "$DOCKERISH"
if rung --root "$ROOT" create --bundle "$B" execd >"$T/cout" 2>&1 &&
	rung --root "$ROOT" start execd >>"$T/cout" 2>&1; then
	rung --root "$ROOT" exec execd /bin/busybox mkdir /tmp/e >"$T/out" 2>"$T/err"
	st=$?
	check_that "mkdir in a process added by exec fails with EPERM" \
		'[ "$st" = 1 ] && contains "$T/err" "Operation not permitted"'
else
	not_ok "create and start a container for exec"
	diag "$(cat "$T/cout")"
fi
rung --root "$ROOT" kill execd KILL >/dev/null 2>&1
i=0
while [ $i -lt 50 ] && rung --root "$ROOT" state execd 2>/dev/null | grep -q '"running"'; do
	sleep 0.1
	i=$((i + 1))
done
rung --root "$ROOT" delete --force execd >/dev/null 2>&1

# --- who may add a filter ------------------------------------------------------------
ALLOW_ALL='{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO"}]}'
config 1000 false '["/bin/seccomp_probe"]' "$ALLOW_ALL"
run probe
check_eq "the probe exits 0" 0 "$st"
check_that "the container's own filter is on (mode 2) without no_new_privs" \
	'contains "$T/out" "^seccomp mode 2$" && contains "$T/out" "^no_new_privs 0$"'
check_that "uid 1000 without no_new_privs nor CAP_SYS_ADMIN: EACCES" \
	'contains "$T/out" "^uid 1000$" && contains "$T/out" "^install EACCES$"'
check_that "after PR_SET_NO_NEW_PRIVS the filter goes on" \
	'contains "$T/out" "^set no_new_privs ok$" && contains "$T/out" "^install again ok$"'
[ "$st" = 0 ] || diag "$out" "$err"

# --- profiles refused at create, naming the field ------------------------------------
# refused DESCRIPTION SECCOMP_JSON ERE: create fails and says ERE.
refused() {
	config 0 true '["/bin/busybox", "true"]' "$2"
	rung --root "$ROOT" create --bundle "$B" refused >"$T/out" 2>&1
	st=$?
	rung --root "$ROOT" delete --force refused >/dev/null 2>&1
	if [ "$st" != 0 ] && contains "$T/out" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diag "status $st" "$(cat "$T/out")"
	fi
}
refused "an unknown action is refused, naming the field" \
	'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_FOO"}]}' \
	'linux\.seccomp\.syscalls\[0\]\.action.*SCMP_ACT_FOO'
refused "an unknown operator is refused, naming the field" \
	'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["kill"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 9, "op": "SCMP_CMP_SOMETIMES"}]}]}' \
	'linux\.seccomp\.syscalls\[0\]\.args\[0\]\.op.*SCMP_CMP_SOMETIMES'
refused "an unknown default action is refused" '{"defaultAction": "SCMP_ACT_MAYBE"}' \
	'linux\.seccomp\.defaultAction.*SCMP_ACT_MAYBE'
refused "SCMP_ACT_NOTIFY is refused as unsupported" \
	'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_NOTIFY"}]}' \
	'SCMP_ACT_NOTIFY is not supported'
refused "an unknown architecture is refused, naming the field" \
	'{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_PDP11"]}' \
	'linux\.seccomp\.architectures\[0\].*SCMP_ARCH_PDP11'
refused "an unknown flag is refused, naming the field" \
	'{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_FAST"]}' \
	'linux\.seccomp\.flags\[0\].*SECCOMP_FILTER_FLAG_FAST'

check_clean "the seccomp containers"
