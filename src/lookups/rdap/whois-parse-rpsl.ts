// RPSL answers (RIPE, APNIC, AFRINIC, IANA) and LACNIC's look-alike
// (RPSL, RFC 2622). The first inetnum/inet6num is the most specific: APNIC
// appends the less specific KRNIC/JPNIC mirror block after it. LACNIC writes
// abbreviated CIDR (`200.57.128/19`), `owner` instead of netname/org and
// YYYYMMDD dates; old APNIC writes `changed: email YYYYMMDD`.
import {
  parseCidrRange,
  parseRangeText,
  rangeToCidrs,
  type AddressRange,
} from './address-range.js';
import { makeEvent, normalizeDate } from './event-dates.js';
import type { ParsedNetwork, WhoisEvent } from './types.js';
import { countryCode } from './whois-parse-arin.js';
import { all, classOf, first, parseObjects, type WhoisObject } from './whois-objects.js';

export function isRpslAnswer(answer: string): boolean {
  return /^inet6?num:/im.test(answer);
}

export function parseRpsl(answer: string): ParsedNetwork | null {
  const objects = parseObjects(answer);
  const net = objects.find((o) => classOf(o) === 'inetnum' || classOf(o) === 'inet6num');
  const block = net === undefined ? null : blockOf(first(net, classOf(net) ?? '') ?? '');
  if (net === undefined || block === null) return null;
  const owner = first(net, 'owner');
  return {
    name: first(net, 'netname') ?? owner,
    handle: block.handle,
    startAddress: block.range.start.text,
    endAddress: block.range.end.text,
    country: countryCode(first(net, 'country')),
    registrant: orgName(objects, net) ?? owner ?? first(net, 'descr'),
    events: rpslEvents(net),
    cidrs: block.cidr === null ? rangeToCidrs(block.range) : [block.cidr],
    type: first(net, 'status'),
    parentHandle: first(net, 'parent'),
    abuseEmail: abuseEmail(answer, objects, net),
  };
}

interface Block {
  range: AddressRange;
  cidr: string | null;
  /** as RDAP writes it: "a - b" for ranges (RIPE/APNIC/AFRINIC), the CIDR otherwise (LACNIC) */
  handle: string;
}

function blockOf(value: string): Block | null {
  const cidr = parseCidrRange(value);
  if (cidr !== null) return { range: cidr, cidr: cidr.cidr, handle: cidr.cidr };
  const range = parseRangeText(value);
  if (range === null) return null;
  return { range, cidr: null, handle: `${range.start.text} - ${range.end.text}` };
}

/** `org: ORG-X` → the `organisation: ORG-X` object's org-name. */
function orgName(objects: readonly WhoisObject[], net: WhoisObject): string | null {
  const handle = first(net, 'org');
  if (handle === null) return null;
  const org = objects.find(
    (o) => classOf(o) === 'organisation' && first(o, 'organisation') === handle,
  );
  return org === undefined ? null : first(org, 'org-name');
}

function rpslEvents(net: WhoisObject): WhoisEvent[] {
  const events: WhoisEvent[] = [];
  const created = first(net, 'created');
  const modified = first(net, 'last-modified') ?? latestChanged(all(net, 'changed'));
  for (const [action, date] of [
    ['registration', created],
    ['last changed', modified],
  ] as const) {
    const event = date === null ? null : makeEvent(action, date);
    if (event !== null) events.push(event);
  }
  return events;
}

/** `changed: hm-changed@apnic.net 20021025` lines → the latest date. */
function latestChanged(values: readonly string[]): string | null {
  const dates = values
    .map((v) => normalizeDate(v.split(/\s+/).at(-1) ?? ''))
    .filter((d): d is string => d !== null)
    .sort();
  return dates.at(-1) ?? null;
}

function abuseEmail(
  answer: string,
  objects: readonly WhoisObject[],
  net: WhoisObject,
): string | null {
  // RIPE states it in a comment: % Abuse contact for '…' is 'abuse@example.net'
  const stated = /^% Abuse contact for '[^']*' is '([^'\s]+@[^'\s]+)'/m.exec(answer)?.[1];
  if (stated !== undefined) return stated;
  const direct = first(net, 'abuse-mailbox');
  if (direct !== null) return direct;
  for (const handle of [...all(net, 'mnt-irt'), ...all(net, 'abuse-c')]) {
    const contact = objects.find(
      (o) => o !== net && (first(o, 'nic-hdl') === handle || first(o, 'irt') === handle),
    );
    const email = contact && (first(contact, 'abuse-mailbox') ?? first(contact, 'e-mail'));
    if (email) return email;
  }
  return null;
}
