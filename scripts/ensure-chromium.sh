#!/bin/sh
# Makes Debian's `chromium` available for the web page's browser tests
# (test/web/page.test.ts): playwright-core drives this binary through its
# executablePath and never downloads a browser build of its own.
# fonts-liberation: the sans and mono faces the page's style sheet names.
set -eu
exec sh "$(dirname "$0")/ensure-debian-package.sh" chromium chromium fonts-liberation
