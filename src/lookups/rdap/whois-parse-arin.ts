// ARIN's port-43 answer to `n + <ip>` (RFC 3912; the query of the `whois` client, https://github.com/rfc1036/whois): one NetRange block per
// matching network, least specific first, each followed by its Org or
// Customer block; so the last NetRange is the network asked about.
import { parseCidrRange, parseRangeText, rangeToCidrs } from './address-range.js';
import { makeEvent } from './event-dates.js';
import type { ParsedNetwork, WhoisEvent } from './types.js';
import { all, first, parseObjects, type WhoisObject } from './whois-objects.js';

export function isArinAnswer(answer: string): boolean {
  return /^NetRange:/im.test(answer);
}

export function parseArin(answer: string): ParsedNetwork | null {
  const objects = parseObjects(answer);
  const net = objects.filter((o) => first(o, 'netrange') !== null).at(-1);
  if (net === undefined) return null;
  const range = parseRangeText(first(net, 'netrange') ?? '');
  if (range === null) return null;
  const after = objects.slice(net.index + 1);
  const holder = after.find((o) => (first(o, 'orgname') ?? first(o, 'custname')) !== null);
  const cidrs = all(net, 'cidr')
    .flatMap((v) => v.split(','))
    .flatMap((v) => parseCidrRange(v.trim())?.cidr ?? []);
  return {
    name: first(net, 'netname'),
    handle: first(net, 'nethandle'),
    startAddress: range.start.text,
    endAddress: range.end.text,
    country: countryCode(first(net, 'country') ?? (holder ? first(holder, 'country') : null)),
    registrant: registrant(net, holder),
    events: arinEvents(net),
    cidrs: cidrs.length > 0 ? cidrs : rangeToCidrs(range),
    type: first(net, 'nettype'),
    parentHandle: handleInParentheses(first(net, 'parent')),
    abuseEmail: abuseEmail([...after, ...objects]),
  };
}

function registrant(net: WhoisObject, holder: WhoisObject | undefined): string | null {
  const named = holder ? (first(holder, 'orgname') ?? first(holder, 'custname')) : null;
  if (named !== null) return named;
  // "Organization: Google Inc. (GOGL)" names the holder with its handle
  const field = first(net, 'organization') ?? first(net, 'customer');
  return field === null ? null : field.replace(/\s*\([^()]*\)\s*$/, '') || null;
}

/** "NET74 (NET-74-0-0-0-0)" → "NET-74-0-0-0-0"; ARIN writes "()" for none. */
function handleInParentheses(value: string | null): string | null {
  if (value === null) return null;
  const inside = /\(([^()]*)\)\s*$/.exec(value)?.[1];
  if (inside === undefined) return value;
  return inside.trim() === '' ? null : inside.trim();
}

function arinEvents(net: WhoisObject): WhoisEvent[] {
  const pairs: [string, string | null][] = [
    ['registration', first(net, 'regdate')],
    ['last changed', first(net, 'updated')],
  ];
  return pairs.flatMap(([action, date]) => {
    const event = date === null ? null : makeEvent(action, date);
    return event === null ? [] : [event];
  });
}

function abuseEmail(objects: readonly WhoisObject[]): string | null {
  for (const object of objects) {
    const email = first(object, 'orgabuseemail');
    if (email !== null && /^[^\s@]+@[^\s@]+$/.test(email)) return email;
  }
  return null;
}

export function countryCode(value: string | null): string | null {
  const code = value?.trim().toUpperCase() ?? '';
  return /^[A-Z]{2}$/.test(code) && code !== 'ZZ' ? code : null;
}
