#!/bin/sh
# Makes `redis-server` available for the Redis-backed store tests: installs the
# Debian package when it is missing. The package's service is not started:
# tests run their own redis-server on a loopback port and stop it afterwards.
set -eu
exec sh "$(dirname "$0")/ensure-debian-package.sh" redis-server redis-server
