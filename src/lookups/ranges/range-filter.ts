// What a range list asks for (GET /ranges, `ipintel ranges`, the MCP tool):
// countries, ASes, kinds and providers, each a set of alternatives (any of
// them), all given ones together (each must hold), and the families listed.
// Pure: the texts in, the filter or a BAD_REQUEST naming the wrong part out.
import { AppError } from '../../kit/errors.js';
import { PROVIDER_NAMES } from '../vpn/providers.js';

/** What an address can be, as /ip/:ip/vpn (and, for bogon, /ip/:ip) answers it. */
export const RANGE_KINDS = ['vpn', 'proxy', 'tor', 'relay', 'hosting', 'mobile', 'bogon'] as const;
export type RangeKind = (typeof RANGE_KINDS)[number];

export interface RangeFilter {
  /** ISO 3166 alpha-2 codes, upper case, as /ip/:ip's `country` (by location) */
  countries: ReadonlySet<string> | null;
  /** AS numbers, as /ip/:ip's `asn` */
  asns: ReadonlySet<number> | null;
  kinds: ReadonlySet<RangeKind> | null;
  /** provider names folded (providerKey), as /ip/:ip/vpn's `provider` */
  providers: ReadonlySet<string> | null;
  /** the families listed, IPv4 first */
  families: readonly (4 | 6)[];
}

/** The texts of a filter as a request gives them (comma-separated lists). */
export interface RangeFilterText {
  country?: string | undefined;
  asn?: string | undefined;
  kind?: string | undefined;
  provider?: string | undefined;
  family?: string | undefined;
}

const COUNTRY = /^[A-Za-z]{2}$/;
const ASN = /^(?:AS)?(\d{1,10})$/i;
const MAX_ITEMS = 300;

/** A provider's name or id as compared: lower case, letters and digits only. */
export function providerKey(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** An AS number from `AS14061` or `14061`, or null when it is not one (0 – 4294967295). */
export function parseAsn(text: string): number | null {
  const match = ASN.exec(text.trim());
  if (match === null) return null;
  const n = Number(match[1]);
  return n <= 0xffffffff ? n : null;
}

function list(name: string, text: string | undefined): string[] | null {
  if (text === undefined) return null;
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new AppError('BAD_REQUEST', `${name} is empty.`);
  if (items.length > MAX_ITEMS) {
    throw new AppError('BAD_REQUEST', `${name} names more than ${MAX_ITEMS} values.`);
  }
  return items;
}

export function parseRangeFilter(t: RangeFilterText): RangeFilter {
  const countries = list('country', t.country)?.map((c) => {
    if (!COUNTRY.test(c)) {
      throw new AppError(
        'BAD_REQUEST',
        `country: "${c}" is not an ISO 3166 alpha-2 code (RU, US).`,
      );
    }
    return c.toUpperCase();
  });
  const asns = list('asn', t.asn)?.map((a) => {
    const n = parseAsn(a);
    if (n === null) throw new AppError('BAD_REQUEST', `asn: "${a}" is not an AS number (AS14061).`);
    return n;
  });
  const kinds = list('kind', t.kind)?.map((k) => {
    const kind = k.toLowerCase() as RangeKind;
    if (!RANGE_KINDS.includes(kind)) {
      throw new AppError('BAD_REQUEST', `kind: "${k}" is not one of ${RANGE_KINDS.join(', ')}.`);
    }
    return kind;
  });
  const providers = list('provider', t.provider)?.map((p) => {
    const key = providerKey(PROVIDER_NAMES[p.toLowerCase()] ?? p);
    if (key === '') throw new AppError('BAD_REQUEST', `provider: "${p}" names no provider.`);
    return key;
  });
  if (!countries && !asns && !kinds && !providers) {
    throw new AppError(
      'BAD_REQUEST',
      'Name what to list: country, asn, kind or provider (e.g. ?country=RU or ?kind=tor).',
    );
  }
  let families: (4 | 6)[] = [4, 6];
  if (t.family !== undefined) {
    if (t.family !== '4' && t.family !== '6') {
      throw new AppError('BAD_REQUEST', 'family is 4 or 6 (both when left out).');
    }
    families = [Number(t.family) as 4 | 6];
  }
  const set = <T>(items: T[] | undefined) => (items === undefined ? null : new Set(items));
  return {
    countries: set(countries),
    asns: set(asns),
    kinds: set(kinds),
    providers: set(providers),
    families,
  };
}

/** The filter as one canonical text (for the ETag and the JSON answer's `filter`). */
export function filterObject(f: RangeFilter): Record<string, string> {
  const out: Record<string, string> = {};
  const sorted = (s: ReadonlySet<string | number>) => [...s].sort().join(',');
  if (f.countries) out['country'] = sorted(f.countries);
  if (f.asns) out['asn'] = [...f.asns].sort((a, b) => a - b).join(',');
  if (f.kinds) out['kind'] = sorted(f.kinds);
  if (f.providers) out['provider'] = sorted(f.providers);
  if (f.families.length === 1) out['family'] = String(f.families[0]);
  return out;
}
