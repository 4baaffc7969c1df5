// The first IPv4 or IPv6 address in a line of text (an access log, a CSV, a
// bare list), for `ipintel enrich`. A character scan rather than a regular
// expression: it runs on every line of files of millions of lines.
//
// A candidate is a run of the characters an address is written with (hex
// digits, "." and ":") standing alone as a word: `x1.2.3.4` and `1.2.3.4a`
// are not addresses, `[2001:db8::1]:443`, `"1.2.3.4"` and `1.2.3.4,` are.
// A run that does not parse as a whole is tried without trailing dots and
// colons (`…at 10.0.0.1.`) and, for `1.2.3.4:8080`, without the port. Zone
// ids end the run (`fe80::1%eth0` gives fe80::1).
import { parseIp, type Ip } from '../net/ip.js';

/** 0-9, a-f, A-F, "." and ":". */
function isAddressChar(c: number): boolean {
  return (
    (c >= 48 && c <= 58) /* 0-9 and : */ ||
    c === 46 ||
    (c >= 97 && c <= 102) ||
    (c >= 65 && c <= 70)
  );
}

/** Letters, digits and "_": what may not touch an address on either side. */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95; /* _ */
}

export function findAddress(line: string): Ip | null {
  const length = line.length;
  let i = 0;
  while (i < length) {
    const c = line.charCodeAt(i);
    if (!isAddressChar(c)) {
      i++;
      continue;
    }
    let end = i + 1;
    let separators = c === 46 || c === 58 ? 1 : 0;
    while (end < length) {
      const d = line.charCodeAt(end);
      if (!isAddressChar(d)) break;
      if (d === 46 || d === 58) separators++;
      end++;
    }
    const standsAlone =
      (i === 0 || !isWordChar(line.charCodeAt(i - 1))) &&
      (end === length || !isWordChar(line.charCodeAt(end)));
    // at least two separators ("1::", "1.2.3.4") and a digit: a bare "::" in
    // prose is punctuation, not the unspecified address
    if (standsAlone && separators >= 2 && end - i > separators) {
      const ip = parseRun(line.slice(i, end));
      if (ip !== null) return ip;
    }
    i = end;
  }
  return null;
}

function parseRun(run: string): Ip | null {
  const whole = parseIp(run);
  if (whole !== null) return whole;
  let end = run.length;
  while (end > 0 && (run.charCodeAt(end - 1) === 46 || run.charCodeAt(end - 1) === 58)) end--;
  if (end < run.length) {
    const trimmed = parseIp(run.slice(0, end));
    if (trimmed !== null) return trimmed;
  }
  // an IPv4 address with a port: 1.2.3.4:8080
  const colon = run.indexOf(':');
  if (colon >= 7 && run.lastIndexOf('.', colon) !== -1) {
    const host = parseIp(run.slice(0, colon));
    if (host !== null && host.version === 4) return host;
  }
  return null;
}
