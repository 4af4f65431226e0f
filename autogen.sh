#!/bin/sh
# Generate ./configure from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux
autoreconf -fi
