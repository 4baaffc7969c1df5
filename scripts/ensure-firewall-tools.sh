#!/bin/sh
# Makes the tools that load GET /ranges' formats available for
# test/routes/range-formats-tools.test.ts, installing Debian's packages for
# what is missing:
#   nftables     `nft -c -f` checks an nftables set without applying it
#   iptables     `iptables-restore --test` / `ip6tables-restore --test`
#   ipset        `ipset restore` (needs CAP_NET_ADMIN and the kernel's ip_set)
#   nginx-light  `nginx -t` with the geo block included (the export's
#                readers install it too); the tests run their own nginx,
#                never the package's service (policy-rc.d keeps it from starting)
# Idempotent and silent when everything is there (apt-get update runs once,
# only when something is missing). Needs root to install.
set -eu

missing=""
command -v nft >/dev/null 2>&1 || [ -x /usr/sbin/nft ] || missing="$missing nftables"
command -v iptables-restore >/dev/null 2>&1 || [ -x /usr/sbin/iptables-restore ] ||
  missing="$missing iptables"
command -v ipset >/dev/null 2>&1 || [ -x /usr/sbin/ipset ] || missing="$missing ipset"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx-light"

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure: missing$missing and apt-get is not available; install them manually" >&2
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
{ apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null; } || status=$?
if [ "$added_policy" = true ]; then rm -f "$policy"; fi
exit "$status"
