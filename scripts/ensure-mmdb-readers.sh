#!/bin/sh
# Makes the MaxMind DB readers the export's tests open the exported files with
# (test/export/real-readers.test.ts), and MaxMind's Python web-service client
# and the TLS terminator the GeoIP2 compatibility test puts before the service
# (test/routes/compat-geoip2.test.ts), available, installing Debian's packages
# for what is missing:
#   mmdb-bin                  libmaxminddb's `mmdblookup`
#   python3-maxminddb         Python's `maxminddb` reader (for /usr/bin/python3)
#   python3-geoip2            Python's `geoip2` reader: city(), asn(), anonymous_ip();
#                             and its geoip2.webservice.Client (requests)
#   nginx-light + libnginx-mod-http-geoip2
#                             nginx and ngx_http_geoip2_module; the tests run
#                             their own nginx on loopback, never the package's
#                             service (policy-rc.d keeps it from starting)
# Idempotent and silent when everything is there. Needs root to install.
set -eu

missing=""
command -v mmdblookup >/dev/null 2>&1 || missing="$missing mmdb-bin"
/usr/bin/python3 -c 'import maxminddb' >/dev/null 2>&1 || missing="$missing python3-maxminddb"
/usr/bin/python3 -c 'import geoip2.database, geoip2.webservice' >/dev/null 2>&1 ||
  missing="$missing python3-geoip2"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx-light"
ls /usr/lib/nginx/modules/ngx_http_geoip2_module.so >/dev/null 2>&1 ||
  missing="$missing libnginx-mod-http-geoip2"

[ -z "$missing" ] && exit 0

# shellcheck disable=SC2086 # the names, one word each
exec sh "$(dirname "$0")/apt-install.sh" $missing
