#!/bin/sh
# shellcheck disable=SC1010,SC2016 # `do` is rung's subcommand; check_that expands later
# Debian's bubblewrap inside `rung do`, on each platform, against the same
# commands run natively (in a network namespace of their own, unshare -n):
# - --unshare-all: user, mount, pid, network, IPC, UTS and cgroup
#   namespaces, the loopback set up over netlink, pivot_root into a new
#   root, then `true` as pid 2 of the new pid namespace;
# - --dev, --proc and --tmpfs mounts in those namespaces: sh, id, ls;
# - --unshare-user --uid 1000: id -u through the new namespace's uid map.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
BWRAP=/usr/bin/bwrap
plan 13

[ -x "$BWRAP" ] || skip_all "no $BWRAP"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	skip_all "needs root and unshare(1)"
fi

# The commands, one per line: NAME|ARGS (run by sh -c after "bwrap").
cat >"$T/cmds" <<'CMDS'
all|--ro-bind / / --unshare-all true
mounts|--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all sh -c 'echo hi; id; ls /tmp'
uid|--ro-bind / / --unshare-user --uid 1000 id -u
CMDS

# run WHERE NAME ARGS: $T/WHERE-NAME.out (stdout, then the status).
run() {
	where=$1 name=$2 args=$3
	case $where in
	native) set -- unshare -n ;;
	systrap) set -- timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do -- ;;
	ptrace) set -- timeout -k 5 "$E2E_TIMEOUT" "$RUNG" do --platform=ptrace -- ;;
	esac
	{
		env -i PATH=/usr/bin:/bin LANG=C "$@" sh -c "$BWRAP $args" </dev/null 2>"$T/$where-$name.err"
		echo "status $?"
	} >"$T/$where-$name.out"
}

while IFS='|' read -r name args; do
	run native "$name" "$args"
	check_that "natively, bwrap $args: status 0" 'contains "$T/native-$name.out" "^status 0$"'
	for p in systrap ptrace; do
		run $p "$name" "$args"
		if cmp -s "$T/native-$name.out" "$T/$p-$name.out"; then
			ok "on $p, bwrap $args prints what it prints natively"
		else
			not_ok "on $p, bwrap $args prints what it prints natively"
			diff "$T/native-$name.out" "$T/$p-$name.out" | sed 's/^/# /'
			sed 's/^/# rung stderr: /' "$T/$p-$name.err" | head -10
		fi
	done
done <"$T/cmds"

check_eq "the uid command prints 1000 (through the uid map)" "1000" "$(head -1 "$T/systrap-uid.out")"
check_eq "the mounts command's shell runs as root of its namespace" \
	"hi|uid=0(root) gid=0(root) groups=0(root)" "$(head -2 "$T/systrap-mounts.out" | tr '\n' '|' | sed 's/|$//')"
check_that "... and its /tmp is a new, empty tmpfs" '[ "$(sed -n 3p "$T/systrap-mounts.out")" = "status 0" ]'
check_clean "bwrap"
