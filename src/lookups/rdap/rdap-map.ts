// RDAP ip network object (RFC 9083 §5.4) → the fields of the API's Whois
// record. Pure: the one extra entity fetch a RIPE answer may need is done by
// the client, which passes the name it found as `registrantName`.
import { AppError } from '../../kit/errors.js';
import {
  orderedRange,
  parseCidrRange,
  parseLooseAddress,
  rangeToCidrs,
  type AddressRange,
  type CidrRange,
} from './address-range.js';
import { makeEvent } from './event-dates.js';
import { vcardCountryCode } from './jcard.js';
import { isRecord, records, text } from './json-shape.js';
import { abuseEmail, chooseRegistrant } from './rdap-entities.js';
import type { ParsedNetwork, WhoisEvent } from './types.js';

export interface MapOptions {
  /** the fn of the registrant entity fetched separately, when there was one */
  registrantName?: string | null;
}

/** Throws UPSTREAM_ERROR when the JSON is not an RDAP ip network object. */
export function asIpNetwork(json: unknown): Record<string, unknown> {
  if (!isRecord(json)) {
    throw new AppError('UPSTREAM_ERROR', 'The RDAP answer is not a JSON object.');
  }
  // an error object (RFC 9083 §6) sent with status 200
  if (typeof json.errorCode === 'number') {
    if (json.errorCode === 404) {
      throw new AppError('NOT_FOUND', 'The registry holds no record for it.');
    }
    throw new AppError('UPSTREAM_ERROR', `The RDAP server reported error ${json.errorCode}.`);
  }
  const className = text(json.objectClassName);
  const describesNetwork =
    text(json.startAddress) !== null || text(json.handle) !== null || cidr0(json).length > 0;
  // AFRINIC 2015 omitted objectClassName, so only a different class is refused
  if ((className !== null && className.toLowerCase() !== 'ip network') || !describesNetwork) {
    throw new AppError('UPSTREAM_ERROR', 'The RDAP answer does not describe an IP network.');
  }
  return json;
}

export function mapRdapNetwork(json: unknown, options: MapOptions = {}): ParsedNetwork {
  const network = asIpNetwork(json);
  const prefixes = cidr0(network);
  const range = networkRange(network, prefixes);
  const choice = chooseRegistrant(network);
  return {
    name: text(network.name),
    handle: text(network.handle),
    startAddress: range?.start.text ?? null,
    endAddress: range?.end.text ?? null,
    country: networkCountry(network, choice.entity),
    registrant: options.registrantName ?? choice.name,
    events: rdapEvents(network.events),
    cidrs: prefixes.length > 0 ? prefixes.map((p) => p.cidr) : range ? rangeToCidrs(range) : [],
    type: text(network.type),
    parentHandle: text(network.parentHandle),
    abuseEmail: abuseEmail(network),
  };
}

/** cidr0 extension: `cidr0_cidrs: [{v4prefix|v6prefix, length}]`. */
function cidr0(network: Record<string, unknown>): CidrRange[] {
  return records(network.cidr0_cidrs).flatMap((entry) => {
    const prefix = text(entry.v4prefix) ?? text(entry.v6prefix);
    const length = entry.length;
    if (prefix === null || typeof length !== 'number' || !Number.isInteger(length)) return [];
    const parsed = parseCidrRange(`${prefix}/${length}`);
    return parsed === null ? [] : [parsed];
  });
}

function networkRange(
  network: Record<string, unknown>,
  prefixes: readonly CidrRange[],
): AddressRange | null {
  const start = text(network.startAddress);
  const end = text(network.endAddress);
  const stated = orderedRange(
    start === null ? null : parseLooseAddress(start),
    end === null ? null : parseLooseAddress(end),
  );
  if (stated !== null) return stated;
  // cidr0 lists the prefixes in order, so the block runs from first to last
  const first = prefixes[0];
  const last = prefixes[prefixes.length - 1];
  return first && last ? orderedRange(first.start, last.end) : null;
}

/**
 * The network's `country`; `ZZ` (APNIC stubs) means unknown. When absent
 * (ARIN), the ISO code in the registrant's vCard address (docs/api.md, "Records", Whois).
 */
function networkCountry(
  network: Record<string, unknown>,
  registrant: Record<string, unknown> | null,
): string | null {
  const stated = text(network.country)?.toUpperCase() ?? null;
  if (stated !== null) return /^[A-Z]{2}$/.test(stated) && stated !== 'ZZ' ? stated : null;
  const fromCard = registrant === null ? null : vcardCountryCode(registrant);
  return fromCard === 'ZZ' ? null : fromCard;
}

function rdapEvents(value: unknown): WhoisEvent[] {
  return records(value).flatMap((event) => {
    const action = text(event.eventAction);
    const date = text(event.eventDate);
    // AFRINIC sends events with no eventDate: nothing to report
    const made = action === null || date === null ? null : makeEvent(action, date);
    return made === null ? [] : [made];
  });
}

/** The registry's whois host from `port43`, when it is a plausible host name. */
export function port43Of(json: unknown): string | null {
  const host = isRecord(json) ? text(json.port43) : null;
  return host !== null && /^[a-z0-9.-]{1,253}$/i.test(host) ? host.toLowerCase() : null;
}
