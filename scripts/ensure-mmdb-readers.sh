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

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure: missing$missing and apt-get is not available; install them manually" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# a package's service must not start (nginx would take port 80): the tests run their own
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
