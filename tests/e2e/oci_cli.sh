#!/bin/sh
# shellcheck disable=SC2016,SC2034 # check_that expands its expression (and uses its variables) later
# The OCI command line as containerd's shim drives it (the recorded argv
# sequences of ../shared/docs/oci-contract.md, replayed against rung
# directly): create/start/state/kill/delete with the shim's global flags,
# pid files, exit statuses as the shim's reaper sees them (reaper.c is a
# child subreaper, as the shim is), the console-socket protocol (recvtty.c
# checks it gets one real pty master), exec proxies, ps, pause/resume,
# update, events, list, spec, features, concurrent commands, the stdio
# rules (no process that outlives a command keeps its pipes) and the
# error lines of --log. The container process is tests/e2e/ocitest.c.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
OCITEST=$E2E_BIN/ocitest
RECVTTY=$E2E_BIN/recvtty
REAPER=$E2E_BIN/reaper

if ! command -v jq >/dev/null; then
	plan 1
	skip "no jq (apt-get install jq)"
	exit 0
fi
for p in "$OCITEST" "$RECVTTY" "$REAPER"; do
	if [ ! -x "$p" ]; then
		plan 1
		skip "$p is not built"
		exit 0
	fi
done

ROOT=$T/state
ROOTFS=$T/rootfs
mkdir -p "$ROOTFS/bin" "$ROOTFS/tmp"
cp "$OCITEST" "$ROOTFS/bin/ocitest"
cp "$OCITEST" "$ROOTFS/bin/noexec"
chmod 644 "$ROOTFS/bin/noexec"

# --- helpers ----------------------------------------------------------------------
REAPERS=
# The containers' cgroups: under a parent of this run's own (removed at the end).
CGROUP_PARENT=rung-oci-cli-$$

# wait_until COMMAND...: poll (0.1 s) until COMMAND succeeds, at most
# $E2E_TIMEOUT seconds; fails on the timeout.
wait_until() {
	i=0
	while ! "$@"; do
		i=$((i + 1))
		[ $i -ge $((E2E_TIMEOUT * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}
has() { grep -Eq -- "$2" "$1" 2>/dev/null; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# bundle NAME ARGS_JSON [JQ_FILTER]: a bundle $T/NAME for `rung spec`'s
# config with the shared rootfs and process.args ARGS_JSON, changed further
# by JQ_FILTER; prints its path.
bundle() {
	b=$T/$1
	mkdir -p "$b"
	rm -f "$b/config.json"
	"$RUNG" spec --bundle "$b" || return 1
	jq --arg root "$ROOTFS" --argjson args "$2" --arg cg "/$CGROUP_PARENT/$1" \
		".root.path = \$root | .process.terminal = false | .process.args = \$args |
		 .linux.cgroupsPath = \$cg | ${3:-.}" \
		"$b/config.json" >"$b/config.tmp" && mv "$b/config.tmp" "$b/config.json"
	echo "$b"
}

# oci B ARGS...: rung with the global flags the shim passes for bundle B.
oci() {
	b=$1
	shift
	rung --root "$ROOT" --log "$b/log.json" --log-format json "$@"
}
# run NAME B ARGS...: oci with stdin /dev/null; $T/NAME.out, $T/NAME.err, $st.
run() {
	name=$1
	shift
	oci "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	st=$?
}

# create ID B [OPTIONS...]: `create --bundle B --pid-file B/init.pid
# OPTIONS ID` as the shim runs it, under a reaper ($T/ID.reap); the
# container's stdout and stderr are $T/ID.out and $T/ID.err (stdin
# $CREATE_STDIN, /dev/null by default). Waits until create exits: $st.
create() {
	id=$1 b=$2
	shift 2
	rm -f "$T/$id.reap" "$T/$id.reap.cmd"
	"$REAPER" "$T/$id.reap" timeout -k 5 "$E2E_TIMEOUT" "$RUNG" --root "$ROOT" \
		--log "$b/log.json" --log-format json create --bundle "$b" \
		--pid-file "$b/init.pid" "$@" "$id" <"${CREATE_STDIN:-/dev/null}" \
		>"$T/$id.out" 2>"$T/$id.err" &
	eval "reaper_$(echo "$id" | tr -c 'a-zA-Z0-9_\n' _)=$!"
	REAPERS="$REAPERS $!"
	if wait_until test -e "$T/$id.reap.cmd"; then st=$(cat "$T/$id.reap.cmd"); else st=hung; fi
}
# reaped ID PID: the status the reaper of ID saw PID exit with (waits for it).
reaped() {
	if wait_until has "$T/$1.reap" "^$2 "; then
		awk -v p="$2" '$1 == p { print $2 }' "$T/$1.reap"
	else
		echo "not reaped"
	fi
}
# field B ID KEY: KEY of ID's state JSON.
field() { oci "$1" state "$2" 2>/dev/null | jq -r ".$3"; }
status() { field "$1" "$2" status; }
# last_error B: the msg of the last "level":"error" line of B's log.
last_error() { jq -r 'select(.level == "error") | .msg' "$1/log.json" 2>/dev/null | tail -n 1; }
# cgfile PID CONTROLLER FILE: the path of FILE in PID's cgroup of CONTROLLER
# (v1), or in its v2 cgroup.
cgfile() {
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		echo "/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' "/proc/$1/cgroup")/$3"
	else
		echo "/sys/fs/cgroup/$2$(awk -F: -v c="$2" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' "/proc/$1/cgroup")/$3"
	fi
}

# --- version, features, spec ------------------------------------------------------
run version "$T" --version
check_that "--version: 'rung version X.Y', 'commit:' and 'spec: 1.0.2-dev' lines" \
	'[ "$st" = 0 ] && has "$T/version.out" "^rung version [0-9]+\.[0-9]+" &&
	 has "$T/version.out" "^commit: " && has "$T/version.out" "^spec: 1\.0\.2-dev$"'
run features "$T" features
check_that "features: runc's JSON (ociVersionMin/Max, the hooks, linux.namespaces)" \
	'[ "$st" = 0 ] && jq -e ".ociVersionMin and .ociVersionMax and
	 (.hooks | index(\"prestart\")) and (.linux.namespaces | index(\"network\"))" \
	 "$T/features.out" >/dev/null'
mkdir -p "$T/specdir"
run spec "$T" spec --bundle "$T/specdir"
check_that "spec --bundle writes a config.json that parses, version 1.0.2-dev" \
	'[ "$st" = 0 ] && [ "$(jq -r .ociVersion "$T/specdir/config.json")" = 1.0.2-dev ]'
run spec2 "$T" spec --bundle "$T/specdir"
check_that "spec again fails: the config.json exists" \
	'[ "$st" = 1 ] && has "$T/spec2.err" "config.json exists"'

# --- scenario A: create, start, the init exits, delete, delete --force --------------
B=$(bundle a '["/bin/ocitest","echo","hello"]')
create a "$B"
check_eq "create exits 0" 0 "$st"
pid=$(cat "$B/init.pid" 2>/dev/null)
check_that "the pid file is the sandbox's pid in decimal, without a newline" \
	'printf %s "$pid" | grep -Eqx "[1-9][0-9]*" && [ "$(wc -c <"$B/init.pid")" = "${#pid}" ] &&
	 [ "$(psf "$pid" comm)" = rung ]'
check_that "the sandbox outlives create (reparented to the reaper)" \
	'[ "$(psf "$pid" ppid)" = "$reaper_a" ]'
run state_a "$B" state a
check_that "state: runc's fields (ociVersion, id, pid, status created, bundle, rootfs, created, owner)" \
	'jq -e --arg b "$B" --argjson p "$pid" --arg r "$ROOTFS" ".ociVersion == \"1.0.2-dev\" and
	 .id == \"a\" and .pid == \$p and .status == \"created\" and .bundle == \$b and
	 .rootfs == \$r and .owner == \"\" and
	 (.created | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\\\.[0-9]{9}Z$\"))" \
	 "$T/state_a.out" >/dev/null'
check_eq "the workload is parked: nothing printed before start" "" "$(cat "$T/a.out")"
run start_a "$B" start a
check_eq "start exits 0" 0 "$st"
wait_until has "$T/a.out" '^hello$'
check_eq "the init ran after start, its stdout the create's fd 1" hello "$(cat "$T/a.out")"
check_eq "the sandbox exits with the init's status (0)" 0 "$(reaped a "$pid")"
check_that "state after the exit: stopped, pid 0" \
	'[ "$(status "$B" a)" = stopped ] && [ "$(field "$B" a pid)" = 0 ]'
run start_a2 "$B" start a
check_that "start of a stopped container fails" '[ "$st" = 1 ]'
run delete_a "$B" delete a
check_eq "delete of the stopped container exits 0" 0 "$st"
run state_a2 "$B" state a
check_that "state of a deleted container: status 1, 'container does not exist'" \
	'[ "$st" = 1 ] && has "$T/state_a2.err" "container does not exist"'
check_that "... and that error is the last \"level\":\"error\" JSON line of --log" \
	'[ "$(last_error "$B")" = "container does not exist" ] &&
	 jq -e "select(.level == \"error\") | .time" "$B/log.json" >/dev/null'
check_that "every line of --log is JSON with level, msg and time" \
	'[ "$(jq -c "select(has(\"level\") and has(\"msg\") and has(\"time\"))" "$B/log.json" | wc -l)" = "$(wc -l <"$B/log.json")" ]'
run delete_a2 "$B" delete a
check_that "delete of an unknown id: status 1, 'container does not exist'" \
	'[ "$st" = 1 ] && has "$T/delete_a2.err" "container does not exist"'
run force1 "$B" delete --force a
st1=$st
run force2 "$B" delete --force a
check_that "delete --force of an unknown id exits 0, twice" '[ "$st1" = 0 ] && [ "$st" = 0 ]'
create a "$B"
check_eq "the same id can be created again after delete (docker start)" 0 "$st"
run force3 "$B" delete --force a
check_that "delete --force of a created container exits 0 and removes it" \
	'[ "$st" = 0 ] && ! oci "$B" state a >/dev/null 2>&1'
check_eq "... its sandbox is gone (SIGKILL: 137)" 137 "$(reaped a "$(cat "$B/init.pid")")"

# --- exit statuses and kill ------------------------------------------------------
B=$(bundle exit3 '["/bin/ocitest","exit","3"]')
create exit3 "$B"
oci "$B" start exit3
check_eq "an init that exits 3: the sandbox exits 3" 3 "$(reaped exit3 "$(cat "$B/init.pid")")"
oci "$B" delete exit3

B=$(bundle run '["/bin/ocitest","exit","9"]')
run run "$B" run --bundle "$B" runid
check_that "run: create, start, wait and delete; the init's status (9)" \
	'[ "$st" = 9 ] && ! oci "$B" state runid 2>/dev/null'
B=$(bundle session '["/bin/ocitest","session"]')
run session "$B" run --bundle "$B" sessionid
check_that "the init is pid 1 and leads its process group and session, as runc's" \
	'[ "$st" = 0 ] && [ "$(cat "$T/session.out")" = "pid 1, group leader yes, session leader yes" ]'
B=$(bundle usr1 '["/bin/ocitest","trap","USR1","42"]')
create usr1 "$B"
oci "$B" start usr1
wait_until has "$T/usr1.out" '^trapping'
run kill_usr1 "$B" kill usr1 10
check_eq "kill ID 10 (a number) exits 0" 0 "$st"
check_eq "... the init's handler ran: the sandbox exits 42" 42 "$(reaped usr1 "$(cat "$B/init.pid")")"
run kill_stopped "$B" kill usr1 9
check_that "kill of a stopped container: status 1, 'container not running'" \
	'[ "$st" = 1 ] && has "$T/kill_stopped.err" "container not running" &&
	 [ "$(last_error "$B")" = "container not running" ]'
oci "$B" delete usr1

B=$(bundle term '["/bin/ocitest","trap","TERM","43"]')
create term "$B"
oci "$B" start term
wait_until has "$T/term.out" '^trapping'
run kill_term "$B" kill term SIGTERM
check_that "kill ID SIGTERM (a name) reaches the init's handler: 43" \
	'[ "$st" = 0 ] && [ "$(reaped term "$(cat "$B/init.pid")")" = 43 ]'
oci "$B" delete term

B=$(bundle term2 '["/bin/ocitest","trap","TERM","44"]')
create term2 "$B"
oci "$B" start term2
wait_until has "$T/term2.out" '^trapping'
run kill_default "$B" kill term2
check_that "kill ID without a signal sends SIGTERM" \
	'[ "$st" = 0 ] && [ "$(reaped term2 "$(cat "$B/init.pid")")" = 44 ]'
oci "$B" delete term2

# Scenario M: pid 1 ignores SIGTERM it has no handler for; then kill 9: 137.
B=$(bundle m '["/bin/ocitest","sleep"]')
create m "$B"
oci "$B" start m
run kill_m15 "$B" kill m 15
check_that "kill 15 of an init without a handler: exit 0, the container still runs" \
	'[ "$st" = 0 ] && [ "$(status "$B" m)" = running ]'
run kill_m9 "$B" kill m KILL
check_that "kill KILL: the sandbox exits 137" \
	'[ "$st" = 0 ] && [ "$(reaped m "$(cat "$B/init.pid")")" = 137 ]'
run kill_bad "$B" kill m FROB
check_that "an unknown signal name fails" '[ "$st" = 1 ]'
oci "$B" delete m

B=$(bundle created '["/bin/ocitest","sleep"]')
create created "$B"
run kill_created "$B" kill created 15
check_that "kill 15 of a created container: the parked init dies of it (143)" \
	'[ "$st" = 0 ] && [ "$(reaped created "$(cat "$B/init.pid")")" = 143 ]'
oci "$B" delete created

B=$(bundle all '["/bin/ocitest","sleep"]')
create all "$B"
oci "$B" start all
run kill_all "$B" kill --all all 9
check_that "kill --all ID 9: the sandbox exits 137" \
	'[ "$st" = 0 ] && [ "$(reaped all "$(cat "$B/init.pid")")" = 137 ]'
oci "$B" delete all
B=$(bundle pterm '["/bin/ocitest","trap","TERM","46"]')
create pterm "$B"
oci "$B" start pterm
wait_until has "$T/pterm.out" '^trapping'
oci "$B" pause pterm
run kill_paused "$B" kill pterm 15
check_eq "kill 15 of a paused container exits 0 (not stuck on the frozen sandbox)" 0 "$st"
oci "$B" resume pterm >/dev/null 2>&1
check_eq "... and the init's handler gets it: 46" 46 "$(reaped pterm "$(cat "$B/init.pid")")"
oci "$B" delete --force pterm
B=$(bundle pkill '["/bin/ocitest","sleep"]')
create pkill "$B"
oci "$B" start pkill
oci "$B" pause pkill
run kill_paused9 "$B" kill pkill 9
check_that "kill 9 of a paused container: the sandbox exits 137" \
	'[ "$st" = 0 ] && [ "$(reaped pkill "$(cat "$B/init.pid")")" = 137 ] && [ "$(status "$B" pkill)" = stopped ]'
oci "$B" delete pkill
run kill_unknown "$B" kill nosuch 9
check_that "kill of an unknown id: status 1, 'container does not exist'" \
	'[ "$st" = 1 ] && has "$T/kill_unknown.err" "container does not exist"'

# --- create's errors -------------------------------------------------------------
B=$(bundle missing '["nosuch"]')
create missing "$B"
check_that "create of a missing program: status 1, runc's words in --log" \
	'[ "$st" = 1 ] && [ "$(last_error "$B")" = "exec: \"nosuch\": executable file not found in \$PATH" ] ||
	 { diag "$(last_error "$B")"; false; }'
check_that "... no pid file, no state left; delete --force exits 0" \
	'[ ! -e "$B/init.pid" ] && ! oci "$B" state missing 2>/dev/null && oci "$B" delete --force missing'
B=$(bundle noexec '["/bin/noexec"]')
create noexec "$B"
check_that "create of a program without x: status 1, 'permission denied' in --log" \
	'[ "$st" = 1 ] && last_error "$B" | grep -q "permission denied"'
B=$(bundle tty_nosock '["/bin/ocitest","tty"]' '.process.terminal = true')
create tty_nosock "$B"
check_that "terminal without --console-socket: runc's error" \
	'[ "$st" = 1 ] && [ "$(last_error "$B")" = "cannot allocate tty if runc will detach without setting console socket" ]'
B=$(bundle dup '["/bin/ocitest","sleep"]')
create dup "$B"
create dup "$B"
check_that "create of an id that exists fails, naming it" \
	'[ "$st" = 1 ] && last_error "$B" | grep -q "container with id exists: dup"'
oci "$B" delete --force dup
run evil "$B" create --bundle "$B" ../evil
check_that "create of an id with a slash fails" '[ "$st" = 1 ] && [ ! -e "$T/evil" ]'

# unsupported SHORT FIELD FILTER: a config with FIELD set is refused at create, naming it.
unsupported() {
	B=$(bundle "u_$1" '["/bin/ocitest","sleep"]' "$3")
	create "u_$1" "$B"
	if [ "$st" = 1 ] && last_error "$B" | grep -qF "$2"; then
		ok "create refuses $2, naming it"
	else
		not_ok "create refuses $2, naming it (status $st)"
		diag "$(last_error "$B")"
		oci "$B" delete --force "u_$1"
	fi
}
unsupported rdt linux.intelRdt '.linux.intelRdt = {"closID": "x"}'
unsupported devices linux.devices '.linux.devices = [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229}]'
unsupported hugepages linux.resources.hugepageLimits '.linux.resources.hugepageLimits = [{"pageSize": "2MB", "limit": 1}]'
unsupported umask process.user.umask '.process.user.umask = 4096' # out of range
unsupported sched process.scheduler '.process.scheduler = {"policy": "SCHED_FIFO"}'
unsupported idmap "mounts[0].uidMappings" '.mounts[0].uidMappings = [{"containerID": 0, "hostID": 1000, "size": 1}]'
unsupported personality linux.personality '.linux.personality = {"domain": "LINUX32"}'
unsupported scont hooks.startContainer '.hooks.startContainer = [{"path": "/bin/ocitest"}]'
unsupported solaris solaris '.solaris = {"milestone": "x"}'
unsupported blkio linux.resources.blockIO.throttleReadBpsDevice '.linux.resources.blockIO.throttleReadBpsDevice = [{"major": 8, "minor": 0, "rate": 1}]'
unsupported kmem linux.resources.memory.kernel '.linux.resources.memory.kernel = 1048576'
B=$(bundle accepted '["/bin/ocitest","exit","0"]' '.process.apparmorProfile = "docker-default" | .process.selinuxLabel = "" |
	.linux.resources.memory.kernel = 0 | .linux.resources.blockIO.weight = 0 | .linux.resources.devices = [{"allow": false, "access": "rwm"}] |
	.linux.personality = {"domain": "LINUX"}')
create accepted "$B"
check_that "create accepts what Docker always sends: zeros, apparmorProfile, the devices cgroup list" '[ "$st" = 0 ] || { diag "$(last_error "$B")"; false; }'
oci "$B" delete --force accepted

# --- stdio: the pipes reach EOF when nothing but the guest holds them ---------------
# A fifo reader stands for the shim's copy loop: it ends at EOF.
mkfifo "$T/fifo-cap1"
cat "$T/fifo-cap1" >"$T/fifo-cap1.out" &
cat1=$!
B=$(bundle closeio '["/bin/ocitest","closeio"]')
"$REAPER" "$T/closeio.reap" "$RUNG" --root "$ROOT" --log "$B/log.json" --log-format json \
	create --bundle "$B" --pid-file "$B/init.pid" closeio </dev/null >"$T/fifo-cap1" 2>&1 &
REAPERS="$REAPERS $!"
wait_until test -e "$T/closeio.reap.cmd"
oci "$B" start closeio
check_that "an init that closes its stdout: the pipe reaches EOF while it runs" \
	'wait_until gone "$cat1" && [ "$(status "$B" closeio)" = running ]'
oci "$B" delete --force closeio
kill "$cat1" 2>/dev/null

# -i: stdin a pipe, passed to the init
B=$(bundle stdin '["/bin/ocitest","cat"]')
printf 'piped input\n' >"$T/stdin.in"
CREATE_STDIN=$T/stdin.in create stdin "$B"
oci "$B" start stdin
check_that "a piped stdin reaches the init (cat), which exits 0 at EOF" \
	'[ "$(reaped stdin "$(cat "$B/init.pid")")" = 0 ] && [ "$(cat "$T/stdin.out")" = "piped input" ]'
oci "$B" delete stdin

# start's capture pipe: EOF as soon as start returns
B=$(bundle cap2 '["/bin/ocitest","sleep"]')
create cap2 "$B"
mkfifo "$T/fifo-cap2"
cat "$T/fifo-cap2" >"$T/fifo-cap2.out" &
cat2=$!
oci "$B" start cap2 >"$T/fifo-cap2" 2>&1
check_that "start with fds 1 and 2 one capture pipe: EOF once start returns" \
	'wait_until gone "$cat2" && [ "$(status "$B" cap2)" = running ]'
kill "$cat2" 2>/dev/null
mkfifo "$T/fifo-cap3"
cat "$T/fifo-cap3" >"$T/fifo-cap3.out" &
cat3=$!
oci "$B" kill cap2 9 >"$T/fifo-cap3" 2>&1
check_that "kill the same: EOF once kill returns" 'wait_until gone "$cat3"'
kill "$cat3" 2>/dev/null
oci "$B" delete --force cap2

# --- the console socket (docker run -t) ---------------------------------------------
B=$(bundle tty '["/bin/ocitest","tty"]' '.process.terminal = true | .process.consoleSize = {"height": 24, "width": 80}')
"$RECVTTY" "$T/tty.sock" "$T/tty.screen" resize "waiting for SIGWINCH" 40 100 >"$T/tty.recv" 2>&1 &
recv=$!
wait_until test -S "$T/tty.sock"
mkfifo "$T/fifo-cap4"
cat "$T/fifo-cap4" >"$T/fifo-cap4.out" &
cat4=$!
"$REAPER" "$T/tty.reap" "$RUNG" --root "$ROOT" --log "$B/log.json" --log-format json \
	create --bundle "$B" --pid-file "$B/init.pid" --console-socket "$T/tty.sock" tty \
	</dev/null >"$T/fifo-cap4" 2>&1 &
REAPERS="$REAPERS $!"
wait_until test -e "$T/tty.reap.cmd"
check_eq "create with --console-socket exits 0" 0 "$(cat "$T/tty.reap.cmd")"
check_that "the capture pipe (fds 1 and 2 of a tty create) reaches EOF when create returns" \
	'wait_until gone "$cat4" && [ "$(status "$B" tty)" = created ]'
kill "$cat4" 2>/dev/null
wait_until has "$T/tty.recv" '^ptsname'
check_that "the receiver got one message: a payload, one descriptor, a tty master" \
	'has "$T/tty.recv" "^payload: .+" && has "$T/tty.recv" "^fds: 1$" &&
	 has "$T/tty.recv" "^isatty: 1$" && has "$T/tty.recv" "^ptsname: /dev/pts/[0-9]+$" &&
	 ! has "$T/tty.recv" "^FAIL"'
oci "$B" start tty
check_eq "the init's tty program exits 0 after its SIGWINCH" 0 "$(reaped tty "$(cat "$B/init.pid")")"
wait_until gone "$recv"
tr -d '\r' <"$T/tty.screen" >"$T/tty.text"
check_that "the init's stdio is the terminal, sized by process.consoleSize (24x80)" \
	'has "$T/tty.text" "^isatty: 1 1 1$" && has "$T/tty.text" "^size: 24x80$"'
check_that "a resize on the master: SIGWINCH in the guest, which reads the new size" \
	'has "$T/tty.text" "^resized: 40x100$"'
diag "$(cat "$T/tty.text")"
oci "$B" delete --force tty
kill "$recv" 2>/dev/null

# --- exec ------------------------------------------------------------------------------
B=$(bundle ex '["/bin/ocitest","sleep"]')
create ex "$B"
oci "$B" start ex
initpid=$(cat "$B/init.pid")
excg=$(dirname "$(cgfile "$initpid" pids cgroup.procs)")
# process FILE ARGS_JSON [JQ]: a process.json as the shim writes one.
process() {
	jq -n --argjson args "$2" '{terminal: false, user: {uid: 0, gid: 0, additionalGids: [0]},
		args: $args, env: ["PATH=/bin"], cwd: "/", oomScoreAdj: 0} | '"${3:-.}" >"$1"
}
# exec_detach NAME PROCESS_JSON [OPTIONS]: the shim's exec under a reaper
# ($T/NAME.reap, pid file $B/NAME.pid, output $T/NAME.out); $st.
exec_detach() {
	en=$1 p=$2
	shift 2
	rm -f "$T/$en.reap" "$T/$en.reap.cmd"
	"$REAPER" "$T/$en.reap" "$RUNG" --root "$ROOT" --log "$B/log.json" --log-format json \
		exec --process "$p" "$@" --detach --pid-file "$B/$en.pid" ex \
		</dev/null >"$T/$en.out" 2>"$T/$en.err" &
	REAPERS="$REAPERS $!"
	if wait_until test -e "$T/$en.reap.cmd"; then st=$(cat "$T/$en.reap.cmd"); else st=hung; fi
}
process "$T/p5.json" '["/bin/ocitest","exit","5"]'
exec_detach e5 "$T/p5.json"
epid=$(cat "$B/e5.pid" 2>/dev/null)
check_that "exec --process P --detach --pid-file F exits 0; F is a pid without a newline" \
	'[ "$st" = 0 ] && printf %s "$epid" | grep -Eqx "[1-9][0-9]*" &&
	 [ "$(wc -c <"$B/e5.pid")" = "${#epid}" ]'
check_eq "the exec proxy exits with the process's status (5)" 5 "$(reaped e5 "$epid")"

process "$T/pecho.json" '["/bin/ocitest","echo","from","exec"]'
exec_detach eecho "$T/pecho.json"
reaped eecho "$(cat "$B/eecho.pid")" >/dev/null
check_eq "the exec'd process's stdout is exec's fd 1" "from exec" "$(cat "$T/eecho.out")"

process "$T/ptrap.json" '["/bin/ocitest","trap","TERM","45"]'
exec_detach etrap "$T/ptrap.json"
wait_until has "$T/etrap.out" '^trapping'
kill -TERM "$(cat "$B/etrap.pid")"
check_eq "SIGTERM to the exec proxy reaches the process's handler (45)" 45 \
	"$(reaped etrap "$(cat "$B/etrap.pid")")"

process "$T/pmiss.json" '["nosuch"]'
exec_detach emiss "$T/pmiss.json"
check_that "exec of a missing program: status 1, runc's words in --log, no pid file" \
	'[ "$st" = 1 ] && [ ! -e "$B/emiss.pid" ] &&
	 [ "$(last_error "$B")" = "exec: \"nosuch\": executable file not found in \$PATH" ]'

run exec6 "$B" exec ex /bin/ocitest exit 6
check_eq "exec ID CMD... (not detached) exits with the process's status" 6 "$st"
run exececho "$B" exec ex /bin/ocitest echo plain exec
check_eq "... and its stdout is exec's" "plain exec" "$(cat "$T/exececho.out")"
run execsession "$B" exec ex /bin/ocitest session
check_eq "an exec'd process leads its own process group and session, as runc's" \
	"pid not 1, group leader yes, session leader yes" "$(cat "$T/execsession.out")"
run execmiss "$B" exec ex nosuch
check_that "exec ID of a missing program fails with runc's words" \
	'[ "$st" != 0 ] && has "$T/execmiss.err" "exec: \"nosuch\": executable file not found in \\\$PATH"'
run execunknown "$B" exec nosuch /bin/ocitest exit 0
check_that "exec in an unknown container: 'container does not exist'" \
	'[ "$st" = 1 ] && has "$T/execunknown.err" "container does not exist"'

# exec -t: the pty master through the console socket; a resize reaches it
process "$T/ptty.json" '["/bin/ocitest","tty"]' '.terminal = true | .env += ["TERM=xterm"]'
"$RECVTTY" "$T/etty.sock" "$T/etty.screen" resize "waiting for SIGWINCH" 30 90 >"$T/etty.recv" 2>&1 &
recv=$!
wait_until test -S "$T/etty.sock"
exec_detach etty "$T/ptty.json" --console-socket "$T/etty.sock"
check_eq "exec -t with --console-socket exits 0" 0 "$st"
check_eq "... its proxy exits 0 once the process saw its SIGWINCH" 0 \
	"$(reaped etty "$(cat "$B/etty.pid" 2>/dev/null)")"
wait_until gone "$recv"
tr -d '\r' <"$T/etty.screen" >"$T/etty.text"
check_that "... the receiver got a tty master; the process's stdio is the terminal" \
	'has "$T/etty.recv" "^isatty: 1$" && has "$T/etty.text" "^isatty: 1 1 1$"'
check_that "... and a resize on the master is SIGWINCH with the new size" \
	'has "$T/etty.text" "^resized: 30x90$"'
diag "$(cat "$T/etty.text")"
# exec -t as the shim runs it: fds 1 and 2 one capture pipe, read to EOF
process "$T/ptsleep.json" '["/bin/ocitest","sleep"]' '.terminal = true'
"$RECVTTY" "$T/etty3.sock" "$T/etty3.screen" >"$T/etty3.recv" 2>&1 &
recv=$!
wait_until test -S "$T/etty3.sock"
mkfifo "$T/fifo-cap5"
cat "$T/fifo-cap5" >"$T/fifo-cap5.out" &
cat5=$!
"$REAPER" "$T/etty3.reap" "$RUNG" --root "$ROOT" --log "$B/log.json" --log-format json \
	exec --process "$T/ptsleep.json" --console-socket "$T/etty3.sock" --detach \
	--pid-file "$B/etty3.pid" ex </dev/null >"$T/fifo-cap5" 2>&1 &
REAPERS="$REAPERS $!"
wait_until test -e "$T/etty3.reap.cmd"
check_that "exec -t with fds 1 and 2 a capture pipe: EOF when exec returns, the proxy still there" \
	'[ "$(cat "$T/etty3.reap.cmd")" = 0 ] && wait_until gone "$cat5" && kill -0 "$(cat "$B/etty3.pid")"'
kill "$cat5" 2>/dev/null
kill -TERM "$(cat "$B/etty3.pid")"
check_eq "... SIGTERM to that proxy ends the process (no handler, not the init): 143" 143 \
	"$(reaped etty3 "$(cat "$B/etty3.pid")")"
wait_until gone "$recv"
exec_detach etty2 "$T/ptty.json"
check_that "exec -t --detach without a console socket: runc's error" \
	'[ "$st" = 1 ] && [ "$(last_error "$B")" = "cannot allocate tty if runc will detach without setting console socket" ]'

# --- ps, pause, resume, update, events --------------------------------------------
run psjson "$B" ps --format json ex
check_that "ps --format json: a JSON array of host pids, the sandbox's first" \
	'[ "$st" = 0 ] && [ "$(jq ".[0]" "$T/psjson.out")" = "$initpid" ] &&
	 jq -e "all(.[]; type == \"number\")" "$T/psjson.out" >/dev/null'
run pstable "$B" ps ex
check_that "ps (table): ps -f's header and a row for the sandbox" \
	'[ "$st" = 0 ] && head -n 1 "$T/pstable.out" | grep -q "^UID *PID" &&
	 awk -v p="$initpid" "\$2 == p" "$T/pstable.out" | grep -q .'

run pause "$B" pause ex
check_that "pause: status paused, the freezer cgroup FROZEN" \
	'[ "$st" = 0 ] && [ "$(status "$B" ex)" = paused ] &&
	 { [ -e /sys/fs/cgroup/cgroup.controllers ] && [ "$(cat "$(cgfile "$initpid" x cgroup.freeze)")" = 1 ] ||
	   [ "$(cat "$(cgfile "$initpid" freezer freezer.state)")" = FROZEN ]; }'
run execpaused "$B" exec ex /bin/ocitest exit 0
check_that "exec in a paused container is refused" '[ "$st" != 0 ] && has "$T/execpaused.err" paused'
run pause2 "$B" pause ex
check_that "pause of a paused container fails" '[ "$st" = 1 ]'
run resume "$B" resume ex
check_that "resume: status running again" '[ "$st" = 0 ] && [ "$(status "$B" ex)" = running ]'
run resume2 "$B" resume ex
check_that "resume of a running container fails: 'container not paused'" \
	'[ "$st" = 1 ] && has "$T/resume2.err" "container not paused"'
run execafter "$B" exec ex /bin/ocitest exit 7
check_eq "exec works again after resume" 7 "$st"

# update --resources -, as docker update sends it (zero: unset)
mem0=$(cat "$(cgfile "$initpid" memory memory.limit_in_bytes)" 2>/dev/null)
printf '%s' '{"memory":{"limit":67108864,"reservation":0,"swap":0,"kernel":0},"cpu":{"shares":512,"quota":50000,"period":100000},"pids":{"limit":50},"blockIO":{"weight":0}}' >"$T/res.json"
oci "$B" update --resources - ex <"$T/res.json" >"$T/update.out" 2>&1
st=$?
# pids.limit 50 is the guest's task limit, kept by the sentry; the host
# cgroup gets a backstop with room for what each task costs on the host
# (runsc-compat/cgroup.c): 4 * 50 + 64.
PIDS_BACKSTOP=264
if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
	check_that "update --resources -: memory.max, cpu.max, pids.max written (status $st)" \
		'[ "$st" = 0 ] && [ "$(cat "$(cgfile "$initpid" x memory.max)")" = 67108864 ] &&
		 [ "$(cat "$(cgfile "$initpid" x cpu.max)")" = "50000 100000" ] &&
		 [ "$(cat "$(cgfile "$initpid" x pids.max)")" = $PIDS_BACKSTOP ]'
else
	check_that "update --resources -: memory, cpu shares/quota/period, pids written (status $st)" \
		'[ "$st" = 0 ] && [ "$(cat "$(cgfile "$initpid" memory memory.limit_in_bytes)")" = 67108864 ] &&
		 [ "$(cat "$(cgfile "$initpid" cpu cpu.shares)")" = 512 ] &&
		 [ "$(cat "$(cgfile "$initpid" cpu cpu.cfs_quota_us)")" = 50000 ] &&
		 [ "$(cat "$(cgfile "$initpid" cpu cpu.cfs_period_us)")" = 100000 ] &&
		 [ "$(cat "$(cgfile "$initpid" pids pids.max)")" = $PIDS_BACKSTOP ]'
fi
diag "memory limit before: $mem0; update said: $(cat "$T/update.out")"
printf '{"memory":{"limit":0},"pids":{"limit":0}}' |
	oci "$B" update --resources - ex >/dev/null 2>&1
check_that "an update of zeros (unset) leaves the limits as they were" \
	'[ -e /sys/fs/cgroup/cgroup.controllers ] || { [ "$(cat "$(cgfile "$initpid" memory memory.limit_in_bytes)")" = 67108864 ] &&
	 [ "$(cat "$(cgfile "$initpid" pids pids.max)")" = $PIDS_BACKSTOP ]; }'
printf 'not json' | oci "$B" update --resources - ex >"$T/update2.out" 2>&1
st=$?
check_that "update with resources that are not JSON fails" '[ "$st" = 1 ]'

run stats "$B" events --stats ex
check_that "events --stats: one JSON object, type stats, with the cgroup's memory, pids and cpu" \
	'[ "$st" = 0 ] && jq -e --arg id ex ".type == \"stats\" and .id == \$id and
	 .data.memory.usage.usage > 0 and .data.pids.current >= 1 and
	 (.data.cpu.usage.total | type == \"number\")" "$T/stats.out" >/dev/null'
diag "$(head -c 600 "$T/stats.out")"

run events_bad "$B" events --interval soon ex
check_that "events with a bad --interval fails" '[ "$st" = 1 ]'
run events_unknown "$B" events --stats nosuch
check_that "events of an unknown id: 'container does not exist'" \
	'[ "$st" = 1 ] && has "$T/events_unknown.err" "container does not exist"'

# --- list -------------------------------------------------------------------------------
run list "$B" list
check_that "list: the table's header and a row for the running container" \
	'[ "$st" = 0 ] && head -n 1 "$T/list.out" | grep -q "^ID *PID *STATUS *BUNDLE *CREATED *OWNER" &&
	 awk -v p="$initpid" "\$1 == \"ex\" && \$2 == p && \$3 == \"running\"" "$T/list.out" | grep -q .'
run listjson "$B" list --format json
check_that "list --format json: an array of state objects" \
	'[ "$st" = 0 ] && jq -e "map(select(.id == \"ex\" and .status == \"running\")) | length == 1" \
	 "$T/listjson.out" >/dev/null'
run listq "$B" list -q
check_that "list -q: the ids" 'grep -qx ex "$T/listq.out"'
run listempty "$T" --root "$T/empty-root" list --format json
check_that "list --format json of an empty root: []" \
	'[ "$st" = 0 ] && [ "$(jq -c . "$T/listempty.out")" = "[]" ]'

# --- checkpoint and restore are refused ------------------------------------------------
run ckpt "$B" checkpoint --image-path "$T/img" ex
check_that "checkpoint: status 1 and a clear error" \
	'[ "$st" = 1 ] && last_error "$B" | grep -q "checkpoint.*not supported"'
run restore "$B" restore --image-path "$T/img" --detach --pid-file "$T/r.pid" -no-subreaper --bundle "$B" ex2
check_that "restore: status 1 and a clear error" \
	'[ "$st" = 1 ] && last_error "$B" | grep -q "restore.*not supported"'

# --- global flags in any order, both forms; runtimeArgs first ---------------------------
out=$(rung --debug --log "$B/log.json" --root="$ROOT" --log-format=json state ex 2>/dev/null | jq -r .status)
check_eq "global flags in any order, --flag=value too (runtimeArgs come first)" running "$out"

# --- concurrent commands on one container --------------------------------------------
# (events --interval streams all along, until the container stops.)
timeout -k 5 $((E2E_TIMEOUT * 4)) "$RUNG" --root "$ROOT" events --interval 100ms ex \
	>"$T/events.out" 2>"$T/events.err" &
ev=$!
wait_until test "$(wc -l <"$T/events.out")" -ge 2
check_that "events --interval 100ms: a stats object a line, again and again" \
	'[ "$(jq -c "select(.type == \"stats\" and .id == \"ex\" and .data.pids.current >= 1)" "$T/events.out" | wc -l)" -ge 2 ]'
# state in a loop while exec, pause, resume and kill run: never a torn state.
(
	i=0
	while [ $i -lt 60 ]; do
		oci "$B" state ex >"$T/st.$i" 2>&1
		if ! jq -e .status "$T/st.$i" >/dev/null 2>&1 && ! grep -q "container does not exist" "$T/st.$i"; then
			echo "corrupt: $(cat "$T/st.$i")"
		fi
		i=$((i + 1))
	done
) >"$T/corrupt" 2>&1 &
loop=$!
exec_detach ebg "$T/p5.json"
process "$T/psleep.json" '["/bin/ocitest","sleep"]'
exec_detach esleep "$T/psleep.json"
oci "$B" pause ex
oci "$B" resume ex
oci "$B" exec ex /bin/ocitest sleep >/dev/null 2>&1 &
e1=$!
oci "$B" exec ex /bin/ocitest sleep >/dev/null 2>&1 &
e2=$!
run killall "$B" kill ex 9
check_that "kill 9 while execs run: the sandbox exits 137" '[ "$(reaped ex "$initpid")" = 137 ]'
check_that "... exec commands in flight end too" 'wait_until gone "$e1" && wait_until gone "$e2"'
check_that "... and so does the exec proxy of a detached exec" \
	'[ "$(reaped esleep "$(cat "$B/esleep.pid")")" != "not reaped" ]'
wait "$loop"
check_eq "state never showed a torn file meanwhile" "" "$(cat "$T/corrupt")"
wait "$e1" "$e2" 2>/dev/null
wait "$ev"
st=$?
check_eq "events --interval ends (status 0) when the container stops" 0 "$st"
diag "$(tail -c 300 "$T/events.err")"

# two deletes at once (the task's delete and the cleanup shim's delete --force)
oci "$B" delete ex >"$T/del1" 2>&1 &
d1=$!
oci "$B" delete --force ex >"$T/del2" 2>&1
s2=$?
wait "$d1"
s1=$?
check_that "delete and delete --force at once: --force exits 0, delete 0 or 'does not exist'" \
	'[ "$s2" = 0 ] && { [ "$s1" = 0 ] || has "$T/del1" "does not exist"; } && ! oci "$B" state ex 2>/dev/null'
check_that "... the container's cgroup is gone ($excg)" '[ -n "$excg" ] && [ ! -d "$excg" ]'

B=$(bundle race '["/bin/ocitest","sleep"]')
create race "$B"
oci "$B" start race
dels=
for i in 1 2 3; do
	oci "$B" delete --force race >/dev/null 2>&1 &
	dels="$dels $!"
done
oci "$B" delete --force race >/dev/null 2>&1
# shellcheck disable=SC2086 # a list of pids
wait $dels
check_that "four delete --force of a running container at once: gone, the sandbox reaped" \
	'! oci "$B" state race 2>/dev/null && [ "$(reaped race "$(cat "$B/init.pid")")" = 137 ] &&
	 [ ! -e "$ROOT/race" ]'

# --- --preserve-fds, process.rlimits, process.oomScoreAdj ---------------------------------
B=$(bundle pfds '["/bin/ocitest","fds"]')
create pfds "$B" --preserve-fds 2 3>"$T/fd3" 4>"$T/fd4" 5>"$T/fd5" 6>"$T/fd6"
oci "$B" start pfds
reaped pfds "$(cat "$B/init.pid")" >/dev/null
check_eq "--preserve-fds 2: the init has 0-4, and no other descriptor" "fds: 0 1 2 3 4" "$(cat "$T/pfds.out")"
oci "$B" delete pfds
B=$(bundle pfds2 '["/bin/ocitest","writefd","4","to fd 4"]')
create pfds2 "$B" --preserve-fds 2 3>"$T/fd3" 4>"$T/fd4" 5>"$T/fd5"
oci "$B" start pfds2
check_that "... they are the caller's files: fd 4 writes the file behind fd 4" \
	'[ "$(reaped pfds2 "$(cat "$B/init.pid")")" = 0 ] && [ "$(cat "$T/fd4")" = "to fd 4" ]'
oci "$B" delete pfds2
B=$(bundle nofds '["/bin/ocitest","fds"]')
create nofds "$B" 3>"$T/fd3" 7>"$T/fd7"
oci "$B" start nofds
reaped nofds "$(cat "$B/init.pid")" >/dev/null
check_eq "without --preserve-fds, the caller's fds 3 and 7 never reach the init" "fds: 0 1 2" "$(cat "$T/nofds.out")"
oci "$B" delete nofds

B=$(bundle rl '["/bin/ocitest","rlimit"]' '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 123, "hard": 456}, {"type": "RLIMIT_NPROC", "soft": 77, "hard": 88}]')
create rl "$B"
oci "$B" start rl
reaped rl "$(cat "$B/init.pid")" >/dev/null
check_that "process.rlimits: the init's RLIMIT_NOFILE and RLIMIT_NPROC" \
	'has "$T/rl.out" "^nofile 123 456$" && has "$T/rl.out" "^nproc 77 88$"'
oci "$B" delete rl

B=$(bundle um '["/bin/ocitest","umask"]' '.process.user.umask = 63')
create um "$B"
oci "$B" start um
reaped um "$(cat "$B/init.pid")" >/dev/null
check_eq "process.user.umask (podman sets it) is the init's umask" "umask 0077" "$(cat "$T/um.out")"
oci "$B" delete um

B=$(bundle oom '["/bin/ocitest","sleep"]' '.process.oomScoreAdj = 432')
create oom "$B"
check_eq "process.oomScoreAdj is the sandbox process's oom_score_adj" 432 \
	"$(cat "/proc/$(cat "$B/init.pid")/oom_score_adj" 2>/dev/null)"
oci "$B" delete --force oom

# --- rung install / uninstall (Docker's daemon.json) ---------------------------------------
DJ=$T/docker/daemon.json
rung install --config "$DJ" >"$T/inst.out" 2>&1
st=$?
check_that "install into a missing daemon.json: runtimes.rung.path is rung's absolute path" \
	'[ "$st" = 0 ] && [ "$(jq -r .runtimes.rung.path "$DJ")" = "$(readlink -f "$RUNG")" ]'
printf '{"debug": true, "runtimes": {"other": {"path": "/usr/bin/other", "runtimeArgs": ["--x"]}}, "log-opts": {"max-size": "10m"}}\n' >"$DJ"
rung install --runtime rung-gofer --config "$DJ" >/dev/null 2>&1
st=$?
check_that "install --runtime NAME keeps every other key and runtime" \
	'[ "$st" = 0 ] && jq -e ".debug == true and .runtimes.other.runtimeArgs == [\"--x\"] and
	 .\"log-opts\".\"max-size\" == \"10m\" and (.runtimes.\"rung-gofer\".path | startswith(\"/\"))" "$DJ" >/dev/null'
check_that "... written atomically: no temporary file is left beside it" \
	'[ "$(ls "$T/docker" | wc -l)" = 1 ]'
rung uninstall --runtime rung-gofer --config "$DJ" >/dev/null 2>&1
st=$?
check_that "uninstall --runtime NAME removes it and keeps the rest" \
	'[ "$st" = 0 ] && jq -e "(.runtimes | has(\"rung-gofer\") | not) and .runtimes.other and .debug" "$DJ" >/dev/null'
cp "$DJ" "$T/dj.before"
printf '{not json' >"$DJ"
rung install --config "$DJ" >"$T/inst2.out" 2>&1
st=$?
check_that "install into a daemon.json that is not JSON fails and leaves it alone" \
	'[ "$st" = 1 ] && [ "$(cat "$DJ")" = "{not json" ]'

# Every reaper ends once the processes it reaps are gone: none may be left.
left=
for r in $REAPERS; do
	wait_until gone "$r" || { left="$left $r" && kill "$r"; }
done
check_eq "every sandbox and exec proxy exited (their reapers are done)" "" "$left"
check_clean "the OCI CLI tests"
left=
for d in /sys/fs/cgroup/"$CGROUP_PARENT" /sys/fs/cgroup/*/"$CGROUP_PARENT"; do
	[ -d "$d" ] || continue
	left="$left$(find "$d" -mindepth 1 -type d)"
	find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
done
check_eq "every container's cgroup was removed by delete" "" "$left"
plan "$n"
