#!/bin/sh
# Configure (once) and build rung in the source tree.
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure --enable-werror
make -j"$(nproc)"
