#!/bin/sh
# Makes `redis-server` available for the Redis-backed store tests: installs the
# Debian package when it is missing (the test setup runs as root on Debian).
# Idempotent and silent when redis-server is already on the PATH.
set -eu

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-redis: redis-server is missing and apt-get is not available; install Redis manually" >&2
  exit 1
fi

# The package's service is not started here: tests run their own redis-server
# on a loopback port and stop it afterwards.
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends redis-server >/dev/null

command -v redis-server >/dev/null 2>&1
