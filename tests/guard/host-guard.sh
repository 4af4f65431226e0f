#!/bin/sh
# The host-state guard: what a test run could change on the host, recorded
# before and compared after. `make check` runs it around the whole suite
# (tests/guard/guard.mk); tests/e2e/host_guard.sh tests it.
#
#   host-guard.sh snapshot DIR [OPTIONS]  record the state into DIR (made anew)
#   host-guard.sh compare DIR [OPTIONS]   record it again and compare with DIR:
#                                         status 0 when nothing changed, else 1
#                                         and a report naming every difference
# OPTIONS (the same for both):
#   --netns NAME   look at the network namespace /run/netns/NAME instead of
#                  the caller's (its addresses, routes and rules)
#   --only LIST    only these aspects, comma-separated: net (addresses,
#                  links, routes and rules of both families), netns (the
#                  named network namespaces), mounts (/proc/mounts), cgroups
#                  (the cgroups of rung and of the container engines the
#                  tests drive), procs (processes left behind)
#   --names ERE    the process names (comm) that count when they are left
#                  orphaned without a mark (below); default: rung's, and
#                  those of the daemons the tests start
#   --settle S     while the state differs, look again each second, for up
#                  to S seconds (default 10): a sandbox's last processes
#                  take a moment to go
#
# What is compared, and what is left out as volatile:
# - net: `ip -j addr` (every link and address) without the addresses'
#   valid_life_time and preferred_life_time, which count down, and without
#   IPv6 temporary (privacy) addresses, which the kernel itself replaces;
#   `ip -j -4/-6 route show table all` without a route's "expires" (a
#   countdown); `ip -j -4/-6 rule`. Both wait until no IPv6 address is
#   tentative (duplicate address detection, a moment after a link is up).
# - netns: `ip netns list`, the names (not the ids ip assigns lazily).
# - mounts: /proc/self/mounts. /run/netns becoming a mount point is noted,
#   not counted: ip(8) makes it one at the first `ip netns add` and keeps it.
# - cgroups: under every cgroup (v1 and v2) mount, the directories with a
#   path component naming rung (/rung/ID, the tests' /rung-e2e-*, ...),
#   docker (docker, docker-*.scope) or libpod; and the controllers a v2
#   root enables for its children (rung enables its own there).
# - procs: processes that were not there before (pid and start time) and
#   belong to the run: DIR/token is the run's mark, which make check passes
#   to every test as RUNG_GUARD_RUN; a process is the run's when it or an
#   ancestor has that mark in its environment (a sandbox's stubs and gofer
#   start with an empty one). A process whose ancestor has another run's
#   mark is that run's; one left orphaned (its parent pid 1) without a mark
#   counts when its name matches --names. Kernel threads and the guard's
#   own ancestors and children are not looked at.
# A changed netns, mount or cgroup whose name carries the pid of a live
# process that another run marks (the tests put $$ in the names of what
# they make), or that no run marks (a rung do run by hand: /rung/do-PID),
# is reported as not this run's and not counted, and so is a directory
# added that holds one: on a machine where several people run the tests
# at once. Nothing else is told apart.
set -u

usage() {
	echo "usage: $0 snapshot|compare DIR [--netns NAME] [--only LIST] [--names ERE] [--settle S]" >&2
	exit 2
}
[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
NETNS='' ONLY=net,netns,mounts,cgroups,procs SETTLE=10
NAMES='^(rung.*|dockerd|containerd.*|docker-proxy|qemu-system.*|virtiofsd|conmon)$'
while [ $# -gt 0 ]; do
	case $1 in
	--netns) NETNS=${2:?} ;;
	--only) ONLY=${2:?} ;;
	--names) NAMES=${2:?} ;;
	--settle) SETTLE=${2:?} ;;
	*) usage ;;
	esac
	shift 2
done
case $cmd in snapshot | compare) ;; *) usage ;; esac

want() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# ipn ARGS...: ip(8) in the namespace looked at.
ipn() {
	if [ -n "$NETNS" ]; then ip -n "$NETNS" "$@"; else ip "$@"; fi
}

# --- recording: one file per aspect, one sorted line per thing -------------------
# A line that cannot be recorded is recorded as an error line, so that the
# guard never passes because a tool is missing.
rec_net() {
	if ! command -v ip >/dev/null || ! command -v jq >/dev/null; then
		echo "error: cannot record the network: ip(8) and jq are needed" >"$1/addr"
		: >"$1/routes"
		return
	fi
	# An IPv6 address is tentative for a moment after its link comes up
	# (duplicate address detection), and gets its local route after: wait
	# for that (up to 10 s).
	i=0
	while [ -n "$(ipn -6 addr show tentative 2>/dev/null)" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	{ ipn -j addr show || echo "error: ip addr failed"; } 2>&1 | jq -r '
		.[] | .ifname as $i
		| ("link " + $i + " " + (del(.addr_info) | tojson)),
		  (.addr_info[]? | select(.temporary != true)
		   | "addr " + $i + " " + .family + " " + .local + "/" + (.prefixlen | tostring) + " " +
		     (del(.family, .local, .prefixlen, .valid_life_time, .preferred_life_time) | tojson))
	' 2>&1 | LC_ALL=C sort >"$1/addr"
	for f in 4 6; do
		{ ipn -j -$f route show table all || echo "error: ip -$f route failed"; } 2>&1 |
			jq -r --arg f "$f" '.[] | "route" + $f + " " + (.dst // "?") + " " + (del(.expires) | tojson)' 2>&1
		{ ipn -j -$f rule show || echo "error: ip -$f rule failed"; } 2>&1 |
			jq -r --arg f "$f" '.[] | "rule" + $f + " " + tojson' 2>&1
	done | LC_ALL=C sort >"$1/routes"
}

rec_netns() {
	if command -v ip >/dev/null; then
		ip netns list 2>&1 | sed 's/ (id: [0-9]*)$//' | LC_ALL=C sort >"$1/netns"
	else
		echo "error: cannot list the network namespaces: no ip(8)" >"$1/netns"
	fi
}

rec_mounts() {
	LC_ALL=C sort /proc/self/mounts >"$1/mounts" 2>&1 ||
		echo "error: cannot read /proc/self/mounts" >"$1/mounts"
}

# The cgroup directories in scope, as "MOUNTPOINT /PATH", and the v2 roots'
# cgroup.subtree_control, as "MOUNTPOINT subtree_control: ...".
CG_SCOPE='/([^/]*rung[^/]*|docker|docker-[^/]*\.scope|libpod[^/]*)(/|$)'
rec_cgroups() {
	awk '$3 == "cgroup" || $3 == "cgroup2" { print $2, $3 }' /proc/self/mounts |
		while read -r m type; do
			find "$m" -mindepth 1 -type d 2>/dev/null | sed "s|^$m||" |
				grep -E "$CG_SCOPE" | sed "s|^|$m |"
			if [ "$type" = cgroup2 ]; then
				echo "$m subtree_control: $(cat "$m/cgroup.subtree_control" 2>&1)"
			fi
		done | LC_ALL=C sort >"$1/cgroups"
}

# stat_fields PID: sets $pid, $ppid, $start and $comm (blanks made _) from
# /proc/PID/stat, with the shell's own read (no process per process);
# fails when PID is gone.
stat_fields() {
	IFS= read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	pid=${line%% *}
	comm=${line#*\(}
	comm=${comm%\)*}
	case $comm in *" "*) comm=$(printf %s "$comm" | tr ' ' _) ;; esac
	# The fields after the name: state ppid pgrp session ... starttime (the 20th).
	# shellcheck disable=SC2086 # words
	set -- ${line##*\) }
	ppid=$2
	shift 19
	start=$1
}

# Every process but kernel threads, as "PID START PPID COMM".
rec_procs() {
	for d in /proc/[0-9]*; do
		stat_fields "${d#/proc/}" || continue
		[ "$pid" = 2 ] || [ "$ppid" = 2 ] && continue
		echo "$pid $start $ppid $comm"
	done >"$1/procs"
}

record() {
	rm -rf "$1"
	mkdir -p "$1"
	want net && rec_net "$1"
	want netns && rec_netns "$1"
	want mounts && rec_mounts "$1"
	want cgroups && rec_cgroups "$1"
	want procs && rec_procs "$1"
	return 0
}

# Where this looks: the network and mount namespaces, and whether they are
# the host's: those of kthreadd (pid 2, always in the initial ones; pid 1
# where there is no kthreadd, in a PID namespace).
where() {
	ref=2
	[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] || ref=1
	for ns in net mnt; do
		me=$(readlink "/proc/self/ns/$ns") host=$(readlink "/proc/$ref/ns/$ns" 2>/dev/null)
		case $ns in net) what=network ;; mnt) what=mounts ;; esac
		if [ "$ns" = net ] && [ -n "$NETNS" ]; then
			echo "$what: the namespace /run/netns/$NETNS"
		elif [ "$me" = "$host" ]; then
			echo "$what: the host's namespace ($me)"
		else
			echo "$what: $me, not the host's (${host:-unreadable}): a private one"
		fi
	done
}

if [ "$cmd" = snapshot ]; then
	record "$dir"
	tok="$(hostname)-$$-$(date +%s)"
	echo "$tok" >"$dir/token"
	where >"$dir/where"
	echo "host guard: recorded the host's state in $dir ($ONLY)"
	sed 's/^/host guard: /' "$dir/where"
	exit 0
fi

# --- comparing ---------------------------------------------------------------------
[ -f "$dir/token" ] || {
	echo "host guard: no snapshot in $dir (run: $0 snapshot $dir)" >&2
	exit 2
}
TOKEN=$(cat "$dir/token")
now=$dir/now
self=$$

# token PID: "ours", "other TOKEN", "none" (an environment without a mark)
# or "empty" (no environment: a stub, a gofer, a zombie, or unreadable).
token() {
	env=$(tr '\0' '\n' 2>/dev/null <"/proc/$1/environ") || {
		echo empty
		return
	}
	[ -n "$env" ] || {
		echo empty
		return
	}
	t=$(printf '%s\n' "$env" | sed -n 's/^RUNG_GUARD_RUN=//p' | head -n 1)
	if [ -z "$t" ]; then
		echo none
	elif [ "$t" = "$TOKEN" ]; then
		echo ours
	else
		echo "other $t"
	fi
}

# owner PID: the mark of PID or of its nearest marked ancestor, "ours Q"
# or "other TOKEN Q" (Q the marked process), or "none".
owner() {
	q=$1 hop=0
	while [ "$q" -gt 1 ] && [ $hop -lt 64 ]; do
		t=$(token "$q")
		case $t in ours | other*)
			echo "$t $q"
			return
			;;
		esac
		stat_fields "$q" || break
		q=$ppid
		hop=$((hop + 1))
	done
	echo none
}

# The processes new since the snapshot, each classified: "left PID COMM
# WHY" for those that count, "theirs PID COMM WHY" for the others.
classify_procs() {
	# The guard's own ancestors and descendants are not looked at.
	awk -v self="$self" '
		NR == FNR { before[$1 " " $2] = 1; next }
		{ ppid[$1] = $3; comm[$1] = $4; start[$1] = $2; pids[++n] = $1 }
		END {
			for (p = self; p in ppid && p > 1; p = ppid[p]) mine[p] = 1
			for (i = 1; i <= n; i++) {
				p = pids[i]
				for (q = p; q in ppid && q > 1; q = ppid[q])
					if (q == self) { mine[p] = 1; break }
				if (!(p in mine) && !((p " " start[p]) in before))
					print p, ppid[p], comm[p]
			}
		}' "$dir/procs" "$now/procs" |
		while read -r p pp pc; do
			[ -d "/proc/$p" ] || continue
			# shellcheck disable=SC2046 # words
			set -- $(owner "$p")
			case $1 in
			ours)
				if [ "$2" = "$p" ]; then
					echo "left $p $pc the run's (marked)"
				else
					echo "left $p $pc the run's (its ancestor $2 is marked)"
				fi
				;;
			other) echo "theirs $p $pc another run's ($2)" ;;
			*)
				if [ "$pp" = 1 ] && printf '%s\n' "$pc" | grep -Eq -- "$NAMES"; then
					echo "left $p $pc orphaned, unmarked (another run's, if one ran meanwhile)"
				else
					echo "theirs $p $pc not the run's (nothing marks it)"
				fi
				;;
			esac
		done
}

# theirs LINE: is LINE (a netns, mount or cgroup) another run's? It is when
# a name in it carries the pid of a live process that another run marks,
# as the tests name what they make ($$ in a namespace's, a cgroup's or
# a scratch directory's name), or that no run marks (a rung do started by
# hand meanwhile: its /rung/do-PID). Prints whose it is.
theirs() {
	for n in $(printf '%s\n' "$1" | grep -oE -- '[-a-z][0-9]{2,}([^0-9]|$)' | tr -dc '0-9\n' | sort -u); do
		[ -d "/proc/$n" ] || continue
		# shellcheck disable=SC2046 # words
		set -- $(owner "$n")
		case $1 in
		other) echo "another run's, $2 (pid $n)" ;;
		none) echo "no run's mark: pid $n, $(args "$n" | cut -c1-60)" ;;
		*) continue ;;
		esac
		return 0
	done
	return 1
}

# reaped LINE: is LINE a gone cgroup of a rung do that had died before
# (a /rung/do-PID whose PID is gone: an earlier run's sandbox killed
# outright)? Any rung do removes such stale cgroups as it starts, and the
# tests' did; that is not a change of theirs.
reaped() {
	n=$(printf '%s\n' "$1" | sed -nE 's|^gone: +[^ ]+ /rung/do-([0-9]+)$|\1|p')
	[ -n "$n" ] && [ ! -d "/proc/$n" ] || return 1
	echo "a dead rung do's cgroup (pid $n), removed as stale"
}

# args PID: the command line of PID, short.
args() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | cut -c1-200; }

# differ: compare $dir with $now, write the report to $now/report; status
# 0 when equal.
differ() {
	: >"$now/report"
	bad=0
	for f in addr routes netns mounts cgroups; do
		[ -f "$dir/$f" ] || continue
		what=$(case $f in
			addr) echo "links and addresses (ip -j addr)" ;;
			routes) echo "routes and rules (ip -j -4/-6 route show table all, ip rule)" ;;
			netns) echo "network namespaces (ip netns list)" ;;
			mounts) echo "mounts (/proc/self/mounts)" ;;
			cgroups) echo "cgroups of rung and the container engines" ;;
			esac)
		d=$(diff "$dir/$f" "$now/$f" | grep '^[<>]')
		if [ "$f" = mounts ]; then
			notes=$(printf '%s\n' "$d" | grep -E '^> [^ ]+ (/var)?/run/netns ')
			d=$(printf '%s\n' "$d" | grep -vE '^> [^ ]+ (/var)?/run/netns ' | grep .)
			[ -n "$notes" ] && printf 'note: /run/netns became a mount point (ip netns add does that once; not counted)\n' >>"$now/report"
		fi
		[ -n "$d" ] || continue
		printf '%s\n' "$d" | sed 's/^< /gone:  /; s/^> /added: /' >"$now/$f.diff"
		: >"$now/$f.counted"
		: >"$now/$f.theirs"
		: >"$now/$f.theirs-lines"
		while IFS= read -r l; do
			if m=$(reaped "$l"); then
				echo "  $l: $m" >>"$now/$f.theirs"
				echo "$l" >>"$now/$f.theirs-lines"
			elif m=$(theirs "$l"); then
				echo "  $l: $m" >>"$now/$f.theirs"
				echo "$l" >>"$now/$f.theirs-lines"
			else
				echo "  $l" >>"$now/$f.counted"
			fi
		done <"$now/$f.diff"
		# A directory added with another run's in it (/rung holding their
		# /rung/do-PID) is theirs too: it goes with its last one.
		if [ -s "$now/$f.counted" ] && [ -s "$now/$f.theirs-lines" ]; then
			mv "$now/$f.counted" "$now/$f.maybe"
			while IFS= read -r c; do
				l=${c#  }
				if grep -qF -- "$l/" "$now/$f.theirs-lines"; then
					echo "  $l: it holds one of those" >>"$now/$f.theirs"
				else
					echo "$c" >>"$now/$f.counted"
				fi
			done <"$now/$f.maybe"
			touch "$now/$f.counted"
		fi
		if [ -s "$now/$f.counted" ]; then
			bad=1
			{
				echo "$what changed:"
				cat "$now/$f.counted"
			} >>"$now/report"
		fi
		if [ -s "$now/$f.theirs" ]; then
			echo "$what changed by another run meanwhile (not counted):" >>"$now/report"
			cat "$now/$f.theirs" >>"$now/report"
		fi
	done
	if [ -f "$dir/procs" ]; then
		classify_procs >"$now/classified"
		if grep -q '^left ' "$now/classified"; then
			bad=1
			echo "processes left behind:" >>"$now/report"
			grep '^left ' "$now/classified" | while read -r _ pid comm why; do
				echo "  $pid $comm: $why: $(args "$pid")"
			done >>"$now/report"
		fi
		if grep -q '^theirs ' "$now/classified"; then
			n=$(grep -c '^theirs ' "$now/classified")
			echo "($n new processes not counted: not this run's)" >>"$now/report"
		fi
	fi
	return $bad
}

tries=0
while :; do
	record "$now"
	differ && break
	[ $tries -ge "$SETTLE" ] && break
	sleep 1
	tries=$((tries + 1))
done
where >"$now/where"
if ! cmp -s "$dir/where" "$now/where"; then
	{
		echo "the snapshot looked elsewhere:"
		sed 's/^/  before: /' "$dir/where"
		sed 's/^/  now:    /' "$now/where"
	} >>"$now/report"
	bad=1
fi
if [ "$bad" = 0 ]; then
	echo "host guard: the host is as it was ($ONLY)"
	sed 's/^/host guard: /' "$now/where"
	sed 's/^/host guard: /' "$now/report"
	exit 0
fi
{
	echo "host guard: FAIL: the host is not as it was before the tests ($ONLY)"
	sed 's/^/host guard: /' "$now/where"
	sed 's/^/host guard: /' "$now/report"
	echo "host guard: (a difference that another test run or container engine on this machine made meanwhile shows here too: nothing else runs in CI)"
} >&2
exit 1
