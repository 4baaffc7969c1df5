// Domain names from the /dns path: IDN accepted and looked up as punycode
// (docs/api.md), everything else checked by hand because url.domainToASCII
// does not enforce label rules (`a..b`, `-bad.com` pass it; the rules: docs/api.md, "Records", DNS).
import { domainToASCII } from 'node:url';
import { AppError } from '../../kit/errors.js';

/** RFC 1035 §2.3.4: 63 octets a label, 255 on the wire = 253 in text without the root dot. */
const MAX_LABEL = 63;
const MAX_NAME = 253;

// LDH (RFC 1123 §2.1) plus `_`, which service labels such as `_dmarc` need (RFC 8552).
const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

// ASCII that may appear before IDN mapping. Anything else ASCII (`/`, `?`, `%`,
// `:`, `@`, spaces…) is refused up front: domainToASCII parses a URL host and
// would silently cut `a/b` down to `a`.
const ASCII_ALLOWED = /^[A-Za-z0-9._-]$/;

function invalid(text: string, why: string): AppError {
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return new AppError('INVALID_DOMAIN', `"${shown}" is not a valid domain name: ${why}`);
}

/**
 * Returns the lower-case ASCII (punycode) form of `text` without a trailing
 * dot, or throws AppError INVALID_DOMAIN. One trailing dot (the root) is accepted.
 */
export function parseDomain(text: string): string {
  if (text.length === 0) throw invalid(text, 'it is empty');
  // a cheap bound before IDN mapping; UTF-8 names can map to at most this many octets anyway
  if (text.length > 4 * MAX_NAME) throw invalid(text, 'it is too long');
  for (const char of text) {
    if (char.charCodeAt(0) < 128 && !ASCII_ALLOWED.test(char)) {
      throw invalid(text, `the character ${JSON.stringify(char)} is not allowed`);
    }
  }
  const ascii = domainToASCII(text);
  if (ascii === '') throw invalid(text, 'it is not a valid internationalised name');
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (name.length === 0) throw invalid(text, 'it is empty');
  if (name.length > MAX_NAME) throw invalid(text, `it is longer than ${MAX_NAME} characters`);
  const labels = name.split('.');
  for (const label of labels) {
    if (label.length === 0) throw invalid(text, 'it has an empty label');
    if (label.length > MAX_LABEL) throw invalid(text, `a label is longer than ${MAX_LABEL}`);
    if (!LABEL.test(label)) {
      throw invalid(text, 'labels use letters, digits, "-" and "_", not starting/ending with "-"');
    }
  }
  // RFC 3696 §2: a top-level label is never all-numeric, so `8.8.8.8` is an
  // address, not a name (and WHATWG host parsing would have rewritten `0x7f.1`).
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) {
    throw invalid(text, 'it looks like an IP address; use /dns/:ip/reverse for those');
  }
  return name;
}
