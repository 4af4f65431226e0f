#!/bin/sh
# shellcheck disable=SC2016 # $vars in single quotes are for the container's sh
# `docker run --network container:A` with rung against a container A (runc-a) that
# runs under runc: the spec names A's namespace (/proc/PID/ns/net), which
# the user-space stack must not take over. In sandbox mode rung's create
# fails with an error naming the namespace and the choices, and A keeps
# its address, its routes and its reachable server; in host mode the rung
# container shares A's namespace through host sockets (A's server on the
# loopback). On a bridge of the test's own, from a private dockerd.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
PLAN=6
plan $PLAN

# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/dockerd.sh"
dockerd_require
command -v ip >/dev/null || skip_all "no ip(8) to make the test's bridge"
command -v nsenter >/dev/null || skip_all "no nsenter(1) to look into A's namespace"
command -v /usr/sbin/runc >/dev/null || skip_all "no runc for container A"

BR=rungdx$$
ip link add "$BR" type bridge && ip addr add 10.213.3.1/24 dev "$BR" && ip link set "$BR" up ||
	skip_all "cannot make a bridge (no CAP_NET_ADMIN?)"
dockerd_cleanup() {
	ip link del "$BR" 2>/dev/null
}
printf '{"runtimes":{"rung-sandbox":{"path":"%s","runtimeArgs":["--network=sandbox"]},"rung-host":{"path":"%s","runtimeArgs":["--network=host"]}}}\n' \
	"$RUNG_ABS" "$RUNG_ABS" >"$DK/daemon.json"
dockerd_start "$DK/daemon.json" --bridge "$BR"
busybox_image rung-bb:test

# fetch URL: the body, or nothing, after up to 5 s of retries.
fetch() {
	i=0
	until body=$(curl -sf -m 2 "$1" 2>/dev/null) || [ $i -ge 25 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	printf '%s' "$body"
}
# netstate: the addresses and routes of A's namespace, seen from outside.
netstate() {
	nsenter -t "$apid" -n ip -o addr show | awk '{ print $2, $3, $4 }' | sort
	nsenter -t "$apid" -n ip -4 route show
	nsenter -t "$apid" -n ip -6 route show
}

dk run -d --name runc-a --runtime=runc rung-bb:test sh -c \
	'mkdir -p /www && echo served-by-runc >/www/index.html && exec httpd -f -p 80 -h /www' \
	>/dev/null 2>"$DK/err" || diag "$(cat "$DK/err")"
ip=$(dk inspect -f '{{.NetworkSettings.IPAddress}}' runc-a)
apid=$(dk inspect -f '{{.State.Pid}}' runc-a)
check_that "container A under runc serves on the bridge ($ip)" \
	'[ -n "$apid" ] && [ "$(fetch "http://$ip/")" = served-by-runc ]'
before=$(netstate)

out=$(dk run --rm --network container:runc-a --runtime=rung-sandbox rung-bb:test true 2>&1)
st=$?
check_that "--network container:runc-a with rung's user-space stack: create fails, naming A's namespace and the choices ($out)" \
	'[ $st != 0 ] && echo "$out" | grep -q "network namespace \`/proc/$apid/ns/net\` is also used by process $apid" && echo "$out" | grep -q -- "--network host"'
check_eq "... and A's addresses and routes are as they were" "$before" "$(netstate)"
check_eq "... and A's server still answers on its address" served-by-runc "$(fetch "http://$ip/")"

out=$(dk run --rm --network container:runc-a --runtime=rung-host rung-bb:test sh -c \
	'printf "GET / HTTP/1.0\r\n\r\n" | nc 127.0.0.1 80 2>&1 | tail -n 1' 2>&1)
check_that "--network host shares A's namespace through host sockets (A's loopback server: $out), A unchanged" \
	'[ "$out" = served-by-runc ] && [ "$(netstate)" = "$before" ]'
stop_dockerd
check_clean "the Docker network namespace checks"
