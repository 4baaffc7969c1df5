// GET /ranges: the addresses that match a filter (country, AS, kind,
// provider, family) as the fewest CIDR blocks, in the form a firewall, a
// proxy or a router loads (?format= or Accept), streamed as it is found
// (src/lookups/ranges/); ETag and X-Data-Version as the other answers,
// If-None-Match → 304 before anything is walked. GET /asn/:asn: what an AS is.
import { createHash } from 'node:crypto';
import Negotiator from 'negotiator';
import { z } from 'zod';
import { AppError } from '../kit/errors.js';
import { defineHandler, type RawBody, type RouteInput } from '../http/route.js';
import { quote } from '../api/params.js';
import {
  filterObject,
  parseAsn,
  parseRangeFilter,
  RANGE_KINDS,
  type RangeFilter,
} from '../lookups/ranges/range-filter.js';
import {
  DEFAULT_NAME,
  NAME,
  RANGE_FORMATS,
  rangeWriter,
  type RangeFormat,
  type RangeWriter,
} from '../lookups/ranges/range-formats.js';
import { rangeChunks, type ListSummary } from '../lookups/ranges/range-list.js';
import type { RangeSources } from '../lookups/ranges/range-match.js';
import { asnProfile, type AsnProfile } from '../lookups/ranges/asn-profile.js';
import { matchesEtag } from '../lookups/provenance.js';
import { asnProfileSchema, rangeListSchema } from '../api/lookup-schemas.js';

/** `{"data": …}` around a record: the JSON list's body */
const envelopeOf = (schema: z.ZodType) => z.object({ data: schema });

/** How long clients may keep a list: as a detection answer (the data changes by updates) */
export const RANGES_MAX_AGE_SECONDS = 6 * 3600;

const text = (description: string, examples: string[]) =>
  z.string().optional().meta({ description, examples });

export const rangesQuery = z.object({
  country: text(
    'ISO 3166 alpha-2 codes, comma-separated: the country by location, as GET /ip/:ip answers `country` (geofeeds and overrides included), not the registry country.',
    ['RU', 'US,CA'],
  ),
  asn: text('AS numbers, comma-separated, with or without AS: as GET /ip/:ip answers `asn`.', [
    'AS14061',
  ]),
  kind: text(
    `Kinds, comma-separated, any of them: ${RANGE_KINDS.join(', ')}: as GET /ip/:ip/vpn answers isVpn, isProxy, isTor, isRelay, isHosting, isMobile (and GET /ip/:ip bogon).`,
    ['tor', 'vpn,proxy'],
  ),
  provider: text(
    'VPN or relay providers, comma-separated (a name or id, case and punctuation ignored): as GET /ip/:ip/vpn answers `provider`.',
    ['Mullvad'],
  ),
  family: text('4 or 6: one family only (both when left out; IPv4 first).', ['4']),
  format: text(
    `${RANGE_FORMATS.join(', ')}; when left out, Accept decides (application/json: json), else plain. iptables needs family (iptables-restore for 4, ip6tables-restore for 6).`,
    ['nftables'],
  ),
  name: text(
    `The set, variable or chain name in nftables, ipset, nginx and iptables output (letters, digits, _; default ${DEFAULT_NAME}); sets get _v4 and _v6.`,
    ['blocklist'],
  ),
});

type RangesQuery = z.output<typeof rangesQuery>;

/** What the routes read: the lookups, and the headers of the data's version. */
export interface RangeRouteDeps {
  sources: RangeSources;
  /** the answers' attribution, X-Data-Version and the data's ETag */
  headers: () => Readonly<Record<string, string>>;
}

/** The format asked for: `format`, else Accept's JSON, else plain. */
function formatOf(query: RangesQuery, accept: string | undefined): RangeFormat {
  if (query.format !== undefined) {
    const format = query.format.toLowerCase() as RangeFormat;
    if (!RANGE_FORMATS.includes(format)) {
      throw new AppError(
        'BAD_REQUEST',
        `format: ${quote(query.format)} is not one of ${RANGE_FORMATS.join(', ')}.`,
      );
    }
    return format;
  }
  if (accept === undefined) return 'plain';
  const type = new Negotiator({ headers: { accept } }).mediaType([
    'text/plain',
    'application/json',
  ]);
  return type === 'application/json' ? 'json' : 'plain';
}

/** A list's request checked whole: the filter, the format and the name. */
export interface RangeRequest {
  filter: RangeFilter;
  format: RangeFormat;
  name: string;
}

export function rangeRequest(query: RangesQuery, accept: string | undefined): RangeRequest {
  const filter = parseRangeFilter(query);
  const format = formatOf(query, accept);
  const name = query.name ?? DEFAULT_NAME;
  if (!NAME.test(name)) {
    throw new AppError(
      'BAD_REQUEST',
      `name: ${quote(name)} is not a name the tools take (a letter, then up to 23 letters, digits or _).`,
    );
  }
  if (format === 'iptables' && filter.families.length !== 1) {
    throw new AppError(
      'BAD_REQUEST',
      'format=iptables needs family=4 (iptables-restore) or family=6 (ip6tables-restore): each reads one family.',
    );
  }
  return { filter, format, name };
}

/** The list's ETag: the data's, the filter, the format and the name. */
function listEtag(dataEtag: string, r: RangeRequest): string {
  const key = JSON.stringify([dataEtag, filterObject(r.filter), r.format, r.name]);
  return `"r-${createHash('sha256').update(key).digest('hex').slice(0, 24)}"`;
}

/** A list's chunks as text, for the CLI and the MCP tool. */
export function rangeText(
  sources: RangeSources,
  r: RangeRequest,
  summary?: ListSummary,
): AsyncGenerator<string> {
  return rangeChunks(sources, r.filter, writerOf(r), summary);
}

function writerOf(r: RangeRequest): RangeWriter {
  return rangeWriter({
    format: r.format,
    name: r.name,
    families: r.filter.families,
    filter: filterObject(r.filter),
  });
}

/** blocks an in-process caller (the MCP tool) gets at most */
export const SUMMARY_BLOCKS = 1_000;

/** A list as a record: its filter, its block count and its first SUMMARY_BLOCKS blocks. */
export interface RangeSummary {
  filter: Record<string, string>;
  count: number;
  ranges: string[];
  truncated: boolean;
}

async function rangeSummary(sources: RangeSources, r: RangeRequest): Promise<RangeSummary> {
  const ranges: string[] = [];
  let count = 0;
  for await (const chunk of rangeText(sources, r)) {
    for (const line of chunk.split('\n')) {
      if (line === '') continue;
      count++;
      if (ranges.length < SUMMARY_BLOCKS) ranges.push(line);
    }
  }
  return { filter: filterObject(r.filter), count, ranges, truncated: count > ranges.length };
}

export function rangeHandlers(deps: RangeRouteDeps) {
  return {
    ranges: defineHandler({
      summary: 'Address ranges matching a filter, for firewalls',
      description:
        'The fewest CIDR blocks covering exactly the addresses that match every filter given (country, asn, kind, provider; comma-separated values are alternatives), as GET /ip/:ip and /ip/:ip/vpn answer each address, overrides and geofeeds included. Formats: plain (one CIDR a line), json, nftables (a set per family), ipset (restore input), nginx (a geo block), iptables (iptables-restore input). Streamed as it is found; ETag and X-Data-Version as the other answers (If-None-Match → 304). One request of the rate limit.',
      tags: ['Ranges'],
      query: rangesQuery,
      response: z.string(),
      mediaTypes: {
        'text/plain': z.string().meta({
          description:
            'plain: one CIDR a line; nftables, ipset, nginx, iptables: the input of those tools',
        }),
        'application/json': envelopeOf(rangeListSchema),
      },
      versioned: { etag: true },
      errors: ['BAD_REQUEST'],
      raw: true,
      // the list is streamed: node:http answers it, never the fast path
      streamed: true,
      handle: ({ query, ctx }: RouteInput<unknown, RangesQuery>): RawBody => {
        const accept = ctx.headers.accept;
        const r = rangeRequest(query, typeof accept === 'string' ? accept : undefined);
        const data = deps.headers();
        const etag = listEtag(data['etag'] ?? '', r);
        const headers = {
          ...data,
          etag,
          'cache-control': `public, max-age=${RANGES_MAX_AGE_SECONDS}`,
        };
        const writer = writerOf(r);
        const ifNoneMatch = ctx.headers['if-none-match'];
        if (matchesEtag(typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, etag)) {
          return { body: null, contentType: writer.contentType, status: 304, headers };
        }
        return {
          body: null,
          contentType: writer.contentType,
          headers,
          stream: rangeChunks(deps.sources, r.filter, writer),
        };
      },
      // in-process callers (the MCP tool): the first blocks and the count, not a file
      record: ({ query }: RouteInput<unknown, RangesQuery>) =>
        rangeSummary(deps.sources, rangeRequest({ ...query, format: 'plain' }, undefined)),
    }),
    asn: defineHandler({
      summary: 'What an autonomous system is',
      description:
        'The AS of the ASN data: its name, where most of its IPv4 addresses are (by GeoIP), what detection says of it as a whole (curated class, organisation-name rule, ASN lists, learned VPN networks) with its reasons, the prefixes the ASN data routes through it (IPv4 and IPv6, the fewest CIDRs) with their address counts, and the feeds that list addresses inside them. 404 for an AS neither the data nor a list knows.',
      tags: ['Ranges'],
      params: z.object({
        asn: z.string().meta({
          description: 'An AS number, with or without AS.',
          examples: ['AS14061', '13335'],
        }),
      }),
      response: asnProfileSchema,
      errors: ['BAD_REQUEST'],
      versioned: { etag: true },
      headers: deps.headers,
      handle: ({ params }: RouteInput<{ asn: string }, unknown>): Promise<AsnProfile> => {
        const asn = parseAsn(params.asn);
        if (asn === null) {
          throw new AppError(
            'BAD_REQUEST',
            `${quote(params.asn)} is not an AS number (AS14061 or 14061).`,
          );
        }
        return asnProfile(deps.sources.geoip, deps.sources.feeds?.() ?? null, asn);
      },
    }),
  };
}
