#!/bin/sh
# Makes a command available for the tests by installing Debian packages when
# it is missing (the test setup runs as root on Debian):
#   sh scripts/ensure-debian-package.sh COMMAND PACKAGE [PACKAGE...]
# Idempotent and silent when COMMAND is already on the PATH. Services a
# package would start are not used: the tests run their own processes.
set -eu

command_name=$1
shift

if command -v "$command_name" >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure: $command_name is missing and apt-get is not available; install $* manually" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "$@" >/dev/null

command -v "$command_name" >/dev/null 2>&1
