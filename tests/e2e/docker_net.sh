#!/bin/sh
# shellcheck disable=SC2016 # $vars in single quotes are for the container's sh
# Docker networking end to end, for each rung network mode of $MODES (one
# runtime per mode: --network=MODE in its runtimeArgs): a guest HTTP server
# (busybox httpd) reached from the host over the test's bridge, a guest
# fetching from a server on the host side of the bridge (refused by the
# default egress policy, allowed by a runtime whose runtimeArgs have
# --egress: this client's API has no annotations), two
# containers talking, `--network none` with only a loopback, and
# `-p 127.0.0.1:18080:80` publishing (through docker-proxy: the test's
# dockerd makes no iptables rules). Servers bind to the bridge's address or
# to the loopback only. All of it in a network namespace of the test's own
# (the "host" here is that namespace).
#
# Containers on one Docker network reach each other as under runc (the
# egress policy allows the sandbox's own subnets): on the default bridge,
# and on a user-defined network by address and by container name (Docker's
# embedded DNS on 127.0.0.11 of each container's namespace: relayed by the
# sentry in sandbox mode), a web-app-and-database-like pair (one serving
# TCP on 5432, the other connecting by name); a runtime with the strict
# policy (--egress=local=deny) refuses its neighbours.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
MODES=${DOCKER_NET_MODES:-host sandbox}
PER_MODE=14
nmodes=$(echo $MODES | wc -w)
PLAN=$((nmodes * PER_MODE + 1))
netns_own "$@"
own=$?
plan $PLAN
[ $own = 0 ] || skip_all "dockerd runs in a network namespace of the test's own: needs root, ip(8), nsenter(1)"

# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/dockerd.sh"
dockerd_require
command -v ip >/dev/null || skip_all "no ip(8) to make the test's bridge"
command -v /usr/sbin/docker-proxy >/dev/null || skip_all "no docker-proxy for -p"

BR=rungdn0
NET_BR=rungdn1
HOSTIP=10.213.1.1
ip link del "$BR" 2>/dev/null
ip link add "$BR" type bridge && ip addr add $HOSTIP/24 dev "$BR" && ip link set "$BR" up ||
	skip_all "cannot make a bridge (no CAP_NET_ADMIN?)"
# (Bridged traffic passes the FORWARD chain of the test's namespace, where
# nothing drops it: the host's rules are not in the way, nor touched.)
dockerd_cleanup() {
	[ -n "${httpd_pid:-}" ] && kill "$httpd_pid" 2>/dev/null
	ip link del "$BR" 2>/dev/null
	ip link del "$NET_BR" 2>/dev/null
}

runtimes=
for m in $MODES; do
	runtimes="$runtimes${runtimes:+,}\"rung-$m\":{\"path\":\"$RUNG_ABS\",\"runtimeArgs\":[\"--network=$m\"]}"
	runtimes="$runtimes,\"rung-$m-lan\":{\"path\":\"$RUNG_ABS\",\"runtimeArgs\":[\"--network=$m\",\"--egress=allow=10.213.1.0/24\"]}"
	runtimes="$runtimes,\"rung-$m-strict\":{\"path\":\"$RUNG_ABS\",\"runtimeArgs\":[\"--network=$m\",\"--egress=local=deny\"]}"
done
printf '{"runtimes":{%s}}\n' "$runtimes" >"$DK/daemon.json"
dockerd_start "$DK/daemon.json" --bridge "$BR" --userland-proxy=true \
	--userland-proxy-path /usr/sbin/docker-proxy
busybox_image rung-bb:test
# A user-defined network (as Compose makes): embedded DNS, names.
dk network create --subnet 10.213.2.0/24 -o com.docker.network.bridge.name=$NET_BR rungnet \
	>/dev/null 2>"$DK/err" || diag "$(cat "$DK/err")"

# A server on the host side of the bridge.
mkdir -p "$DK/www"
echo from-the-host >"$DK/www/index.html"
busybox httpd -f -p $HOSTIP:8081 -h "$DK/www" &
httpd_pid=$!

# fetch URL: the body, or nothing, after up to 5 s of retries.
fetch() {
	i=0
	until body=$(curl -sf -m 2 "$1" 2>/dev/null) || [ $i -ge 25 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	printf '%s' "$body"
}
# GET IP PORT: an HTTP GET from the guest with nc (busybox wget crashes on
# a refused connection): the body's last line, or nc's complaint.
GET='printf "GET / HTTP/1.0\r\n\r\n" | nc "$0" "$1" 2>&1 | tail -n 1'
WEB='mkdir -p /www && echo "$MSG" >/www/index.html && exec httpd -f -p 80 -h /www'
# A database's stand-in: each connection on 5432 gets back the line it sent.
DB='exec nc -ll -p 5432 -e /bin/sh -c "read l; echo db-got-\$l"'
# ASK HOST: one line to HOST:5432 and what came back (or nc's complaint).
ASK='echo "$1" | nc "$0" 5432 2>&1 | tail -n 1'
# retry N CMD...: run CMD (which sets $out) until $out is $want, N times
# at most, 0.5 s apart (a new container's server may not listen yet).
retry() {
	tries=$1
	shift
	while :; do
		"$@"
		[ "$out" = "$want" ] || [ "$tries" -le 1 ] && break
		tries=$((tries - 1))
		sleep 0.5
	done
}

for m in $MODES; do
	RT=rung-$m
	dk run -d --name "web-$m" --runtime="$RT" -e MSG="served-by-$m" rung-bb:test \
		sh -c "$WEB" >/dev/null 2>"$DK/err" || diag "$(cat "$DK/err")"
	ip=$(dk inspect -f '{{.NetworkSettings.IPAddress}}' "web-$m")
	check_eq "--network=$m: a guest httpd on the bridge ($ip) answers the host" \
		"served-by-$m" "$(fetch "http://$ip/")"
	out=$(dk run --rm --runtime="$RT" rung-bb:test ip -o addr show 2>&1)
	check_that "--network=$m: ip addr in the guest shows lo and a bridge address" \
		'echo "$out" | grep -q "inet 127.0.0.1/8" && echo "$out" | grep -Eq "inet 10\.213\.1\.[0-9]+/24"'

	out=$(dk run --rm --runtime="$RT" rung-bb:test sh -c "$GET" $HOSTIP 8081 2>&1)
	check_that "--network=$m: the default egress policy refuses the host's private address" \
		'echo "$out" | grep -qi "refused"'
	out=$(dk run --rm --runtime="$RT-lan" rung-bb:test sh -c "$GET" $HOSTIP 8081 2>&1)
	check_eq "--network=$m: allowed by --egress, the guest fetches from the host" \
		from-the-host "$out"
	out=$(dk run --rm --runtime="$RT-lan" rung-bb:test sh -c "$GET" "$ip" 80 2>&1)
	check_eq "--network=$m: two containers talk over the bridge" "served-by-$m" "$out"
	out=$(dk run --rm --runtime="$RT" rung-bb:test sh -c "$GET" "$ip" 80 2>&1)
	check_eq "--network=$m: and under the default policy (the bridge is their own subnet)" \
		"served-by-$m" "$out"
	dk rm -f "web-$m" >/dev/null

	# A user-defined network: by address, by name, a web app and its
	# database, the strict policy.
	dk run -d --name "app-$m" --network rungnet --runtime="$RT" -e MSG="app-of-$m" \
		rung-bb:test sh -c "$WEB" >/dev/null 2>"$DK/err" || diag "$(cat "$DK/err")"
	dk run -d --name "db-$m" --network rungnet --runtime="$RT" rung-bb:test sh -c "$DB" \
		>/dev/null 2>"$DK/err" || diag "$(cat "$DK/err")"
	app=$(dk inspect -f '{{(index .NetworkSettings.Networks "rungnet").IPAddress}}' "app-$m")
	get_app() { out=$(dk run --rm --network rungnet --runtime="$RT" rung-bb:test sh -c "$GET" "$1" 80 2>&1); }
	want="app-of-$m"
	retry 10 get_app "$app"
	check_eq "--network=$m: a container on a user-defined network reaches another by address ($app)" \
		"app-of-$m" "$out"
	get_app "app-$m"
	check_eq "--network=$m: and by name, through Docker's embedded DNS" "app-of-$m" "$out"
	ask_db() { out=$(dk run --rm --network rungnet --runtime="$RT" rung-bb:test sh -c "$ASK" "db-$m" "$1" 2>&1); }
	want=db-got-select-1
	retry 10 ask_db select-1
	check_eq "--network=$m: a web app reaches its database by name (port 5432)" db-got-select-1 "$out"
	out=$(dk run --rm --network rungnet --runtime="$RT-strict" rung-bb:test sh -c "$GET" "$app" 80 2>&1)
	check_that "--network=$m: the strict policy (--egress=local=deny) refuses the neighbour ($out)" \
		'echo "$out" | grep -qi "refused"'
	out=$(dk run --rm --network rungnet --runtime="$RT-strict" rung-bb:test sh -c "$ASK" "db-$m" x 2>&1)
	check_that "--network=$m: and the database, by name ($out)" '! echo "$out" | grep -q db-got'
	dk rm -f "app-$m" "db-$m" >/dev/null

	out=$(dk run --rm --runtime="$RT" --network none rung-bb:test ip -o link 2>&1)
	check_that "--network=$m with docker --network none: only a loopback ($out)" \
		'[ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "^1: lo:"'
	out=$(dk run --rm --runtime="$RT" --network none rung-bb:test \
		sh -c "$GET" $HOSTIP 8081 2>&1)
	check_that "--network=$m with docker --network none: the host is unreachable" \
		'! echo "$out" | grep -q from-the-host'

	dk run -d --name "pub-$m" --runtime="$RT" -p 127.0.0.1:18080:80 -e MSG="published-$m" \
		rung-bb:test sh -c "$WEB" >/dev/null
	check_eq "--network=$m: -p 127.0.0.1:18080:80 publishes the guest's port 80" \
		"published-$m" "$(fetch http://127.0.0.1:18080/)"
	dk rm -f "pub-$m" >/dev/null
done
dk network rm rungnet >/dev/null 2>&1
stop_dockerd
check_clean "the Docker network checks"
