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

# shellcheck disable=SC2086 # the names, one word each
exec sh "$(dirname "$0")/apt-install.sh" $missing
