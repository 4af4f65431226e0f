# shellcheck shell=sh
# A dockerd of a test's own, for the Docker tests (sourced after lib.sh,
# whose skip_all ends the test where one is missing): private data root,
# exec root and socket under $DK, its own supervised containerd, no
# iptables rules, the containers' cgroups under $E2E_CGROUP (cgroupfs).
# The test runs in a network namespace of its own (netns_own, before its
# plan): dockerd, its bridge, the containers' veths and every client live
# there, never in the host's.
#
#   dockerd_require          skip the test unless dockerd, root and a static
#                            busybox are here; hold the host-mounts lock
#   dockerd_start JSON ARGS  start it with daemon.json JSON and more dockerd
#                            ARGS; skip the test if it does not come up
#   dk ARGS...               the docker client against it ($DK_TIMEOUT s)
#   stop_dockerd             remove every container and stop it (also at
#                            exit, then dockerd_cleanup if the test has one)
#   busybox_image NAME       Debian's static busybox as image NAME ($DK/bb)
DOCKER=/usr/bin/docker
DK=$E2E_TMP/d
DK_TIMEOUT=${DK_TIMEOUT:-90}
RUNG_ABS=$(cd "$(dirname "$RUNG")" && pwd)/$(basename "$RUNG")
mkdir -p "$DK"

dockerd_require() {
	command -v /usr/sbin/dockerd >/dev/null && [ -x "$DOCKER" ] ||
		skip_all "no dockerd or docker client (apt-get install docker.io)"
	[ "$(id -u)" = 0 ] || skip_all "dockerd needs root"
	file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' ||
		skip_all "no static busybox (apt-get install busybox-static)"
	# One Docker test at a time, and none while another test compares the
	# host's mount table: dockerd mounts overlays on the host.
	host_mounts_hold -x
}

dk() { timeout -k 5 "$DK_TIMEOUT" "$DOCKER" -H "unix://$DK/sock" "$@"; }

dockerd_start() {
	json=$1
	shift
	/usr/sbin/dockerd --config-file "$json" --data-root "$DK/data" \
		--exec-root "$DK/exec" --pidfile "$DK/dockerd.pid" -H "unix://$DK/sock" \
		--iptables=false --ip-masq=false --userland-proxy=false \
		--exec-opt native.cgroupdriver=cgroupfs --cgroup-parent "$E2E_CGROUP" "$@" \
		>"$DK/dockerd.log" 2>&1 &
	dockerd_pid=$!
	trap 'stop_dockerd; e2e_exit' EXIT
	i=0
	until dk version >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$dockerd_pid" 2>/dev/null; then
			tail -20 "$DK/dockerd.log" | sed 's/^/# /'
			skip_all "dockerd did not start"
		fi
		sleep 0.1
	done
}

stop_dockerd() {
	[ -n "${dockerd_pid:-}" ] || return 0
	dk ps -aq 2>/dev/null | xargs -r "$DOCKER" -H "unix://$DK/sock" rm -f >/dev/null 2>&1
	kill "$dockerd_pid" 2>/dev/null
	i=0
	while kill -0 "$dockerd_pid" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$dockerd_pid" 2>/dev/null
	wait "$dockerd_pid" 2>/dev/null
	dockerd_pid=
	command -v dockerd_cleanup >/dev/null && dockerd_cleanup
	# dockerd leaves its overlay and netns mounts to the last moment.
	grep -o " $DK[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
}

busybox_image() {
	bb=$DK/bb
	mkdir -p "$bb/bin" "$bb/etc" "$bb/tmp" "$bb/proc" "$bb/sys" "$bb/dev"
	cp /bin/busybox "$bb/bin/"
	for a in $(/bin/busybox --list); do
		[ -e "$bb/bin/$a" ] || ln -s busybox "$bb/bin/$a"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$bb/etc/passwd"
	echo 'root:x:0:' >"$bb/etc/group"
	tar -C "$bb" -c . | dk import - "$1" >/dev/null
}
