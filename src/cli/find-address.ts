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
import { Buffer } from 'node:buffer';
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

/** The first address in a line of text. */
export function findAddress(line: string): Ip | null {
  const bytes = Buffer.from(line, 'utf8');
  return findAddressIn(bytes, 0, bytes.length);
}

/**
 * The first address in bytes [start, end) of `line`, UTF-8 text: the bulk
 * path reads lines as bytes and never decodes them. Every byte of a
 * character beyond ASCII is ≥ 0x80, neither an address character nor a word
 * character, just as the character itself is in findAddress.
 */
export function findAddressIn(line: Buffer, start: number, end: number): Ip | null {
  let i = start;
  while (i < end) {
    const c = line[i]!;
    if (!isAddressChar(c)) {
      i++;
      continue;
    }
    let runEnd = i + 1;
    let separators = c === 46 || c === 58 ? 1 : 0;
    while (runEnd < end) {
      const d = line[runEnd]!;
      if (!isAddressChar(d)) break;
      if (d === 46 || d === 58) separators++;
      runEnd++;
    }
    const standsAlone =
      (i === start || !isWordChar(line[i - 1]!)) && (runEnd === end || !isWordChar(line[runEnd]!));
    // at least two separators ("1::", "1.2.3.4") and a digit: a bare "::" in
    // prose is punctuation, not the unspecified address
    if (standsAlone && separators >= 2 && runEnd - i > separators) {
      // the run is ASCII by construction: latin1 decodes it byte for byte
      const ip = parseRun(line.toString('latin1', i, runEnd));
      if (ip !== null) return ip;
    }
    i = runEnd;
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
