#!/bin/sh
# Makes Debian's `chromium` available for the browser tests of the web page
# (test/web/): installs the package when it is missing (the test setup runs as
# root on Debian). playwright-core drives this binary through its
# executablePath; it never downloads a browser build of its own.
# Idempotent and silent when chromium is already on the PATH.
set -eu

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: chromium is missing and apt-get is not available; install Chromium manually" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# fonts-liberation: text metrics a person would see (the screenshot in docs/)
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null

command -v chromium >/dev/null 2>&1
