#!/bin/sh
# docker.sh's checks at isolation level 1: rung registered with runtimeArgs --isolation=container.
RUNG_DOCKER_ISOLATION=container exec "$(dirname "$0")/docker.sh" "$@"
