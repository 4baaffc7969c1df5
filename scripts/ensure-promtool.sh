#!/bin/sh
# Makes `promtool` available for the alert-rule tests (test/deploy/): installs
# Debian's `prometheus` package, which ships it, when it is missing. The
# package's service is not used: the tests only run `promtool check rules`
# and `promtool test rules` on deploy/prometheus/.
set -eu
exec sh "$(dirname "$0")/ensure-debian-package.sh" promtool prometheus
