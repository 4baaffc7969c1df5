// Event timestamps as the API gives them (docs/api.md, "Records", Whois): ISO 8601 with an offset. RDAP
// sends RFC 3339 (RFC 9083 §4.5), kept with its offset as sent; whois sends
// dates only (ARIN `2007-03-13`, LACNIC/APNIC `20001204`), taken as midnight
// UTC. Anything else (impossible dates, free text) is dropped, not guessed.
import type { WhoisEvent } from './types.js';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;
const DATE_ONLY = /^(\d{4})-?(\d{2})-?(\d{2})$/;

export function normalizeDate(raw: string): string | null {
  const value = raw.trim();
  const day = DATE_ONLY.exec(value);
  if (day !== null) {
    const [, y = '', m = '', d = ''] = day;
    return validDay(y, m, d) ? `${y}-${m}-${d}T00:00:00Z` : null;
  }
  const match = DATE_TIME.exec(value);
  if (match === null) return null;
  const [, y = '', m = '', d = '', hh = '', mm = '', ss = '00', frac = '', zulu, sign, oh, om] =
    match;
  if (!validDay(y, m, d) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
  let offset = 'Z';
  // no offset at all: RDAP requires one, so a missing one is read as UTC
  if (zulu === undefined && sign !== undefined) {
    if (Number(oh) > 23 || Number(om) > 59) return null;
    offset = `${sign}${oh ?? '00'}:${om ?? '00'}`;
  }
  return `${y}-${m}-${d}T${hh}:${mm}:${ss}${frac}${offset}`;
}

function validDay(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return (
    Number(y) >= 1970 &&
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(m) - 1 &&
    date.getUTCDate() === Number(d)
  );
}

/** "Last Changed " → "last changed" (IANA RDAP JSON Values are lower case). */
export function normalizeAction(raw: string): string | null {
  const action = raw.trim().replace(/\s+/g, ' ').toLowerCase();
  return action === '' || action.length > 64 ? null : action;
}

/** Builds an event, or null when either part is unusable. */
export function makeEvent(action: string, date: string): WhoisEvent | null {
  const a = normalizeAction(action);
  const d = normalizeDate(date);
  return a === null || d === null ? null : { action: a, date: d };
}
