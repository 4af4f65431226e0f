#!/bin/sh
# Install what rung needs to build and test on Debian 12 (apt-get).
set -eu
PKGS="build-essential autoconf automake pkg-config file
libseccomp-dev liburing-dev libcap-ng-dev libcapstone-dev libjson-c-dev check
clang-format busybox-static jq"

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
