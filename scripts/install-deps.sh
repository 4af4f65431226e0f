#!/bin/sh
# Install what rung needs to build and test on Debian 12 (apt-get). The
# last line of PKGS is what tests/e2e/multiproc.sh runs in the sandbox;
# bsdutils has script(1), which multiproc.sh and tty.sh use. The line
# before it is what tests/e2e/docker.sh drives (dockerd with its own
# containerd; iproute2 makes the test's bridge) and the runtimes bench/run
# compares rung with. qemu-system-x86 and linux-image-amd64 (the guest
# kernel, with its modules) are for the VM levels (--isolation=microvm|vm)
# and tests/e2e/microvm.sh. bubblewrap, proot, user-mode-linux and
# gnuplot-nox are the isolation-ladder benchmark's peers and plots
# (bench/setup, bench/smoke in CI).
set -eu
PKGS="build-essential autoconf automake pkg-config file
libseccomp-dev liburing-dev libcap-ng-dev libcapstone-dev libjson-c-dev check liblwip-dev
clang-format busybox-static jq
docker.io containerd runc crun iproute2 podman
qemu-system-x86 linux-image-amd64 xz-utils
bubblewrap proot user-mode-linux gnuplot-nox
gcc make git python3 perl tar gzip bsdutils"

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi
