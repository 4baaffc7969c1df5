#!/bin/sh
# Installs Debian packages for the tests (the test setup runs as root on
# Debian) with no service of theirs started (nginx would take port 80: the
# tests run their own processes):
#   sh scripts/apt-install.sh PACKAGE [PACKAGE...]
# The ensure-*.sh scripts call it with what they found missing.
set -u

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure: missing $* and apt-get is not available; install them manually" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
added_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  added_policy=true
fi
status=0
{ apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } || status=$?
if [ "$added_policy" = true ]; then rm -f "$policy"; fi
exit "$status"
