// Response schemas of the network lookups and VPN detection (see schemas.ts
// for the GeoIP and CIDR records and the rules these follow).
import { z } from 'zod';
import { geoIpRecordSchema } from './schemas.js';

const d = (description: string) => ({ description });

export const dnsRecordsSchema = z
  .object({
    records: z.array(
      z.object({
        name: z.string().meta(d('Owner name of the record, without trailing dot.')),
        type: z.enum(['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME']),
        ttl: z.number().int().meta(d('Time to live in seconds, as the server sent it.')),
        data: z
          .string()
          .meta(
            d(
              'Presentation form: A dotted quad; AAAA RFC 5952; MX "<priority> <host>."; NS/CNAME "<host>."; TXT the record’s character-strings joined, unquoted.',
            ),
          ),
      }),
    ),
  })
  .meta({ id: 'DnsRecords' });

export const reverseDnsSchema = z
  .object({
    ip: z.string(),
    ptr: z.string().meta(d('The name queried, e.g. 8.8.8.8.in-addr.arpa.')),
    hostnames: z.array(z.string()).meta(d('PTR targets without the trailing dot; [] when none.')),
    confirmedHostnames: z
      .array(z.string())
      .meta(
        d(
          'Those of hostnames whose A (IPv4) or AAAA (IPv6) records contain the address (forward-confirmed reverse DNS). At most the first 8 names are checked, with one try each within DNS_TIMEOUT_MS; a name whose forward lookup fails or times out is not confirmed.',
        ),
      ),
  })
  .meta({ id: 'ReverseDns' });

export const whoisRecordSchema = z
  .object({
    ip: z.string(),
    name: z.string().nullable().meta(d('Network name.')),
    handle: z.string().nullable().meta(d('Registry handle of the network.')),
    startAddress: z.string().nullable().meta(d('First address of the network block.')),
    endAddress: z.string().nullable().meta(d('Last address of the network block.')),
    country: z.string().nullable().meta(d('Two-letter country code of the registration.')),
    registrant: z.string().nullable().meta(d('Organisation the block is registered to.')),
    events: z.array(
      z.object({
        action: z
          .string()
          .meta(d('Lower-cased RDAP event action, e.g. registration, last changed.')),
        date: z.string().meta(d('ISO 8601 timestamp with offset.')),
      }),
    ),
    cidrs: z.array(z.string()).meta(d('The block as CIDR prefixes.')),
    type: z.string().nullable().meta(d('Allocation type as the registry writes it.')),
    parentHandle: z.string().nullable(),
    registry: z.enum(['arin', 'ripe', 'apnic', 'lacnic', 'afrinic']).nullable(),
    source: z.enum(['rdap', 'whois']).meta(d('Which protocol produced the record.')),
    abuseEmail: z.string().nullable(),
  })
  .meta({ id: 'WhoisRecord' });

export const blacklistSchema = z
  .object({
    ip: z.string(),
    isListed: z.boolean().meta(d('True when a source with confidence ≥ 0.5 lists the address.')),
    listedCount: z.number().int().meta(d('Sources listing the address at any confidence.')),
    sources: z.array(
      z.object({
        name: z.string().meta(d('Human name of the list (the zone when unknown).')),
        zone: z.string(),
        listed: z.boolean(),
        confidence: z
          .number()
          .min(0)
          .max(1)
          .meta(d('0–1: the list’s reliability weight for the returned code; 0 when not listed.')),
        codes: z.array(z.string()).meta(d('127.0.0.x return codes.')),
        reason: z.string().nullable().meta(d('The list’s TXT explanation, when listed.')),
        error: z
          .string()
          .nullable()
          .meta(d('Why this list could not be checked; such a source never counts as listed.')),
        url: z.string().nullable().meta(d('Lookup or removal page of the list.')),
      }),
    ),
  })
  .meta({ id: 'BlacklistRecord' });

export const vpnRecordSchema = z
  .object({
    ip: z.string(),
    isVpn: z.boolean(),
    isProxy: z
      .boolean()
      .meta(
        d(
          'Tor exits and open proxies on a maintained proxy list (an entry counts while the list is at most PROXY_LIST_MAX_AGE_HOURS old).',
        ),
      ),
    isHosting: z.boolean().meta(d('Cloud, hosting or datacenter network (not an eyeball ISP).')),
    isMobile: z.boolean(),
    isTor: z.boolean(),
    isRelay: z
      .boolean()
      .meta(
        d(
          'Inside a privacy relay’s published egress ranges (iCloud Private Relay, Cloudflare WARP): one user behind a privacy feature that keeps their approximate region, not a VPN (isVpn stays false unless another source says so). Reason `relay:<feed>`.',
        ),
      ),
    provider: z
      .string()
      .nullable()
      .meta(
        d(
          'The VPN service whose published server list holds the address ("Mullvad", "NordVPN"…), else the privacy relay whose egress ranges hold it ("iCloud Private Relay", "Cloudflare WARP"); null when no list names one (or two lists disagree).',
        ),
      ),
    confidence: z
      .enum(['high', 'medium', 'low'])
      .meta(
        d(
          'high: inside a cloud’s published range, a VPN provider’s server list or the Tor exit list; medium: on an open-proxy or datacenter list, or the operator’s ASN is classified; low: an organisation-name rule only, or no signal.',
        ),
      ),
    asn: z.string().nullable(),
    org: z.string().nullable(),
    reasons: z.array(z.string()).meta(d('Machine-readable evidence, e.g. "aws-published-range".')),
  })
  .meta({ id: 'VpnRecord' });

/** One result of POST /batch (and the MCP batch tool): the record(s), or why the query is not an address. */
export const batchResultSchema = z.union([
  z.object({
    query: z.string().meta(d('The string as sent.')),
    data: geoIpRecordSchema.extend({
      vpn: vpnRecordSchema
        .optional()
        .meta(d('The record of GET /ip/:ip/vpn, with ?include=vpn (MCP: vpn: true).')),
    }),
  }),
  z.object({
    query: z.string().meta(d('The string as sent.')),
    error: z.object({ code: z.literal('INVALID_IP'), message: z.string() }),
  }),
]);

export const batchSchema = z
  .object({
    results: z.array(batchResultSchema).meta(d('One result per query, in the order sent.')),
    count: z.number().int().meta(d('Number of results (= queries sent).')),
    errors: z.number().int().meta(d('Results that are errors.')),
  })
  .meta({ id: 'BatchResults' });

export const asnProfileSchema = z
  .object({
    asn: z.string().meta(d('`AS<number>`.')),
    name: z.string().nullable().meta(d('The organisation the ASN data names.')),
    isp: z.string().nullable(),
    country: z
      .string()
      .nullable()
      .meta(
        d(
          'Where most of its IPv4 addresses are by location (GeoIP, the first address of each prefix); null when it routes no IPv4.',
        ),
      ),
    classes: z
      .array(z.string())
      .meta(
        d(
          'What detection makes of the AS as a whole: vpn, hosting, mobile, isp (a curated access network), vpn-dense (it holds VPN-dense hosting blocks).',
        ),
      ),
    isVpn: z.boolean(),
    isHosting: z.boolean(),
    isMobile: z.boolean(),
    provider: z.string().nullable(),
    reasons: z
      .array(z.string())
      .meta(d('The reasons GET /ip/:ip/vpn gives for an address of the AS no list names.')),
    prefixes: z.object({ v4: z.array(z.string()), v6: z.array(z.string()) }),
    addresses: z.object({
      v4: z.number().int(),
      v6: z.string().meta(d('A decimal text: IPv6 counts pass 2^53.')),
    }),
    feeds: z.array(z.string()).meta(d('Feeds listing addresses in its prefixes, or the AS.')),
  })
  .meta({ id: 'AsnProfile' });

export const rangeSummarySchema = z
  .object({
    filter: z.record(z.string(), z.string()).meta(d('The filter as understood, canonical.')),
    count: z.number().int().meta(d('CIDR blocks in the whole list.')),
    ranges: z.array(z.string()).meta(d('The first blocks of the list (at most 1,000).')),
    truncated: z.boolean().meta(d('true when the list has more blocks than `ranges` holds.')),
  })
  .meta({ id: 'RangeSummary' });

export const rangeListSchema = z
  .object({
    filter: z.record(z.string(), z.string()).meta(d('The filter as understood, canonical.')),
    ranges: z.array(z.string()).meta(d('The CIDR blocks, IPv4 first, ascending.')),
    count: z.number().int(),
  })
  .meta({ id: 'RangeList' });
