// The MCP tool table: one tool per REST lookup, each a thin description over
// App.call, so a tool call runs the very route handler of the REST API
// (validation, cache, errors) with its arguments as the route's parameters,
// and no lookup exists twice. A tool failure is a tool result
// with isError (CallToolResult), carrying the REST error code and message,
// so a model can read what went wrong and correct its input.
import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  asnProfileSchema,
  batchSchema,
  rangeSummarySchema,
  blacklistSchema,
  dnsRecordsSchema,
  reverseDnsSchema,
  vpnRecordSchema,
  whoisRecordSchema,
} from '../api/lookup-schemas.js';
import { cidrRecordSchema, geoIpRecordSchema } from '../api/schemas.js';
import { toErrorResponse } from '../kit/errors.js';
import { RECORD_TYPES } from '../lookups/dns/record-type.js';
import type { RawInput } from '../app.js';
import type { RequestContext } from '../http/route.js';

/** App.call: a GET route (by its path pattern) run in-process, answering its record or throwing AppError. */
export type CallRoute = (path: string, raw: RawInput, ctx: RequestContext) => Promise<unknown>;

export interface ToolDeps {
  call: CallRoute;
  /**
   * The request that carries a tool call, by the JSON-RPC id the server saw:
   * its client IP is what `my_ip` reports (one server answers every HTTP
   * request, see ./mux-transport.ts).
   */
  context(requestId: RequestId): RequestContext;
  log: Logger;
}

/** Key of the machine-readable error in a failed result's `_meta` (see toolError). */
export const ERROR_META_KEY = 'ipintel/error';

/** The route a tool runs (its path pattern, e.g. "/ip/:ip") and its raw parameters. */
interface Lookup extends RawInput {
  route: string;
}

interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** true when the tool asks servers outside this process (DNS, registries, DNSBLs) */
  network: boolean;
  lookup(args: z.output<z.ZodObject<I>>, ctx: RequestContext): Lookup;
  /** a short plain-text rendering of the record for clients that show only `content` */
  render(record: z.output<O>, args: z.output<z.ZodObject<I>>): string;
}

export interface McpTool {
  readonly name: string;
  readonly network: boolean;
  register(server: McpServer, deps: ToolDeps): void;
  /** the plain-text rendering of a record (also the `ipintel` CLI's readable output) */
  render(record: unknown, args: Record<string, unknown>): string;
}

function defineTool<I extends z.ZodRawShape, O extends z.ZodObject>(spec: ToolSpec<I, O>): McpTool {
  return {
    name: spec.name,
    network: spec.network,
    render: (record, args) => spec.render(record as z.output<O>, args as z.output<z.ZodObject<I>>),
    register(server, deps) {
      const handler = async (
        args: z.output<z.ZodObject<I>>,
        extra: { requestId: RequestId },
      ): Promise<CallToolResult> => {
        try {
          const ctx = deps.context(extra.requestId);
          const { route, ...raw } = spec.lookup(args, ctx);
          const record = (await deps.call(route, raw, ctx)) as z.output<O>;
          return {
            content: [
              { type: 'text', text: spec.render(record, args) },
              // the MCP spec asks for the structured result as JSON text too, for
              // clients that do not read structuredContent
              { type: 'text', text: JSON.stringify(record) },
            ],
            structuredContent: record,
          };
        } catch (error) {
          return toolError(error, deps.log);
        }
      };
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema: spec.input,
          // the raw shape, not the object: the records carry a schema `id` (for
          // OpenAPI components) that would make the JSON Schema a bare `$ref`,
          // and MCP wants an outputSchema of `type: "object"`
          outputSchema: spec.output.shape,
          annotations: {
            title: spec.title,
            readOnlyHint: true,
            // the MCP default is true: say so explicitly for the local lookups
            openWorldHint: spec.network,
          },
        },
        // registerTool types its callback with a conditional on the shape,
        // which a generic shape leaves unresolved; the SDK passes the parsed
        // arguments of `spec.input`, which is what `handler` takes
        handler as unknown as ToolCallback<I>,
      );
    },
  };
}

/**
 * A failure as a tool result. No structuredContent: the SDK client validates
 * any structuredContent against the tool's outputSchema even when isError is
 * set, so an error object there would turn into a client-side exception.
 * The code and message stay machine-readable in `_meta`.
 */
export function toolError(error: unknown, log: Logger): CallToolResult {
  const failure = toErrorResponse(error);
  if (failure.unexpected) log.error({ err: error }, 'unexpected error in an MCP tool');
  return {
    content: [{ type: 'text', text: `${failure.code}: ${failure.message}` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: { code: failure.code, message: failure.message } },
  };
}

const ipInput = (what: string) => ({
  ip: z
    .string()
    .describe(
      `${what} IPv4 in dotted-quad form without leading zeros (e.g. "8.8.8.8") or IPv6 without a zone (e.g. "2606:4700:4700::1111").`,
    ),
});

type GeoIpRecord = z.output<typeof geoIpRecordSchema>;

function renderGeoIp(r: GeoIpRecord): string {
  if (r.bogon) {
    return `${r.ip} is a bogon (private, loopback, link-local, CGNAT, documentation or other special-purpose address): it has no location or public network.`;
  }
  const place = [r.city, r.region, r.country].filter((part) => part !== null).join(', ');
  const network = r.asn === null ? 'unknown network' : `${r.asn} (${r.org ?? r.isp ?? 'unknown'})`;
  const parts = [`${r.ip}: ${place === '' ? 'location unknown' : place}`, network];
  if (r.timezone !== null) parts.push(`time zone ${r.timezone}`);
  if (r.latitude !== null && r.longitude !== null) {
    const within =
      r.accuracyRadiusKm === null
        ? ''
        : ` (within ${r.accuracyRadiusKm} km for about 2 answers in 3)`;
    parts.push(`${r.latitude}, ${r.longitude}${within}`);
  }
  return parts.join('; ');
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** The provider names the relay, not a VPN service: the record is a relay's and no VPN list's. */
function relayNamed(r: { isRelay: boolean; isVpn: boolean; provider: string | null }): boolean {
  return r.isRelay && !r.isVpn && r.provider !== null;
}

export const TOOLS: readonly McpTool[] = [
  defineTool({
    name: 'geoip_lookup',
    title: 'GeoIP lookup',
    description:
      'Locate an IP address: country (ISO code), region, city, coordinates, IANA time zone, and the autonomous system (ASN and organisation) that announces it. Works offline from the embedded GeoIP database. Private, loopback and other special-purpose addresses come back with bogon=true and every other field null. Use vpn_detect to learn whether the address belongs to a VPN, proxy, Tor or hosting provider, and whois_lookup for the registered owner of the network block.',
    input: ipInput('The address to locate:'),
    output: geoIpRecordSchema,
    network: false,
    lookup: ({ ip }) => ({ route: '/ip/:ip', params: { ip } }),
    render: renderGeoIp,
  }),
  defineTool({
    name: 'vpn_detect',
    title: 'VPN / proxy / hosting detection',
    description:
      'Tell whether an IP address belongs to a VPN provider (and which one, in `provider`, when a provider’s server list names it), an open proxy, a Tor exit, a privacy relay’s egress (`isRelay`: iCloud Private Relay, Cloudflare WARP, named in `provider`; a relay is not a VPN), a hosting/cloud/datacenter network or a mobile carrier, with the confidence (high: inside a published range or a VPN provider’s list; medium: an open-proxy or datacenter list, or the operator’s ASN is classified; low: an organisation-name rule only, or no signal) and the evidence in `reasons`. Offline, from data shipped with the service. A false flag means "no evidence", not proof of a residential user.',
    input: ipInput('The address to check:'),
    output: vpnRecordSchema,
    network: false,
    lookup: ({ ip }) => ({ route: '/ip/:ip/vpn', params: { ip } }),
    render: (r) =>
      `${r.ip}: VPN ${yesNo(r.isVpn)}${r.provider === null || relayNamed(r) ? '' : ` (${r.provider})`}, proxy ${yesNo(r.isProxy)}, Tor ${yesNo(r.isTor)}, relay ${yesNo(r.isRelay)}${relayNamed(r) ? ` (${r.provider})` : ''}, hosting ${yesNo(r.isHosting)}, mobile ${yesNo(r.isMobile)} (confidence ${r.confidence}${r.asn === null ? '' : `; ${r.asn} ${r.org ?? ''}`.trimEnd()})${r.reasons.length > 0 ? `; evidence: ${r.reasons.join(', ')}` : ''}`,
  }),
  defineTool({
    name: 'whois_lookup',
    title: 'Whois / RDAP lookup',
    description:
      'Find who a network block is registered to: the block holding the IP address (first and last address, CIDR prefixes), its name and handle, the registrant organisation, country, abuse contact e-mail, allocation type and registration events, from the regional internet registry (ARIN, RIPE, APNIC, LACNIC, AFRINIC) over RDAP, with port-43 whois as the fallback. Queries the registry over the network (answers are cached for a week). Private and other special-purpose addresses fail with NOT_FOUND naming their range.',
    input: ipInput('The address whose network block to look up:'),
    output: whoisRecordSchema,
    network: true,
    lookup: ({ ip }) => ({ route: '/whois/:ip', params: { ip } }),
    render: (r) => {
      const block =
        r.startAddress !== null && r.endAddress !== null
          ? `${r.startAddress} – ${r.endAddress}`
          : 'block bounds unknown';
      const cidrs = r.cidrs.length > 0 ? ` (${r.cidrs.join(', ')})` : '';
      const who = [r.name, r.registrant, r.country].filter((part) => part !== null).join(', ');
      const abuse = r.abuseEmail === null ? '' : `; abuse contact ${r.abuseEmail}`;
      return `${r.ip} is in ${block}${cidrs}: ${who === '' ? 'no name' : who}; registry ${r.registry ?? 'unknown'} via ${r.source}${abuse}`;
    },
  }),
  defineTool({
    name: 'dns_lookup',
    title: 'DNS records',
    description:
      'Resolve DNS records of a domain name: A (IPv4 addresses, the default), AAAA (IPv6), MX (mail servers, "<priority> <host>."), TXT (SPF, DKIM, verification strings), NS (name servers) or CNAME (aliases). Each record comes with the TTL the server sent; a CNAME chain is listed record by record. An existing name without records of that type gives an empty list; a name that does not exist fails with NXDOMAIN. Internationalised names are accepted. For the name of an IP address use reverse_dns instead.',
    input: {
      domain: z
        .string()
        .describe(
          'The domain name, e.g. "example.com" (a trailing dot is allowed; internationalised names such as "münchen.de" are queried as punycode). Not an IP address.',
        ),
      type: z
        .enum(RECORD_TYPES)
        .default('A')
        .describe('The record type to resolve; A when omitted.'),
    },
    output: dnsRecordsSchema,
    network: true,
    lookup: ({ domain, type }) => ({ route: '/dns/:domain', params: { domain }, query: { type } }),
    render: (r, { domain, type }) =>
      r.records.length === 0
        ? `${domain} exists but has no ${type} records.`
        : r.records.map((rec) => `${rec.name} ${rec.ttl} ${rec.type} ${rec.data}`).join('\n'),
  }),
  defineTool({
    name: 'reverse_dns',
    title: 'Reverse DNS (PTR)',
    description:
      'Find the host names of an IP address through its PTR records (in-addr.arpa for IPv4, ip6.arpa for IPv6). An address without a PTR record gives an empty hostnames list, which is common and not an error. confirmedHostnames lists the names whose A/AAAA records point back at the address (forward-confirmed reverse DNS): only those say who runs the address. Queries DNS over the network.',
    input: ipInput('The address whose host names to find:'),
    output: reverseDnsSchema,
    network: true,
    lookup: ({ ip }) => ({ route: '/dns/:ip/reverse', params: { ip } }),
    render: (r) =>
      r.hostnames.length === 0
        ? `${r.ip} (${r.ptr}) has no PTR record.`
        : `${r.ip} (${r.ptr}) → ${r.hostnames
            .map(
              (h) => `${h} (${r.confirmedHostnames.includes(h) ? 'confirmed' : 'not confirmed'})`,
            )
            .join(', ')}`,
  }),
  defineTool({
    name: 'blacklist_check',
    title: 'DNS blacklist check',
    description:
      'Check whether an IPv4 address is listed on DNS-based blacklists (DNSBLs such as Spamhaus ZEN or SpamCop) used to block spam and abuse; all configured lists are asked in parallel. isListed is true when a reliable list (confidence ≥ 0.5) lists the address; each source reports its return codes, the list’s reason and, when the list could not be asked, an error (such a source never counts as listed). IPv4 only: an IPv6 address fails with IPV4_ONLY. Queries DNS over the network.',
    input: ipInput('The IPv4 address to check:'),
    output: blacklistSchema,
    network: true,
    lookup: ({ ip }) => ({ route: '/blacklist/:ip', params: { ip } }),
    render: (r) => {
      const listed = r.sources.filter((s) => s.listed);
      const failed = r.sources.filter((s) => s.error !== null);
      const head =
        listed.length === 0
          ? `${r.ip} is on none of the ${r.sources.length} lists checked.`
          : `${r.ip} is listed on ${listed.length} of ${r.sources.length} lists${r.isListed ? '' : ' (low-confidence lists only, so isListed is false)'}: ${listed
              .map(
                (s) =>
                  `${s.name} (${s.codes.join(', ')}${s.reason === null ? '' : `: ${s.reason}`})`,
              )
              .join('; ')}.`;
      return failed.length === 0
        ? head
        : `${head} Not checked: ${failed.map((s) => `${s.name} (${s.error ?? ''})`).join('; ')}.`;
    },
  }),
  defineTool({
    name: 'cidr_calculate',
    title: 'CIDR calculator',
    description:
      'Calculate an IPv4 or IPv6 subnet from CIDR notation: network and broadcast address, subnet and wildcard masks, first and last usable host, total and usable host counts. Host bits may be set (192.168.1.77/24 reports the 192.168.1.0/24 network); IPv4 /31 and /32 follow RFC 3021 (every address usable). IPv6 has no broadcast (null), counts above 2^53 − 1 are decimal strings, and the network address (Subnet-Router anycast, RFC 4291) is not counted as usable except in a /127 or /128. Pure arithmetic, no network access.',
    input: {
      range: z
        .string()
        .describe(
          'An IPv4 range as <address>/<prefix length 0–32>, e.g. "10.0.0.0/8", or an IPv6 range as <address>/<prefix length 0–128>, e.g. "2001:db8::/32".',
        ),
    },
    output: cidrRecordSchema,
    network: false,
    lookup: ({ range }) => ({ route: '/cidr', query: { range } }),
    render: (r) =>
      `${r.cidr}: network ${r.network}, broadcast ${r.broadcast ?? 'none (IPv6)'}, mask ${r.subnetMask} (wildcard ${r.wildcardMask}), hosts ${r.firstHost} – ${r.lastHost}, ${r.usableHosts} usable of ${r.totalHosts}`,
  }),
  defineTool({
    name: 'geoip_batch',
    title: 'GeoIP (and VPN detection) of many addresses',
    description:
      'Locate many IP addresses in one call (up to 1,000 by default, the server’s BATCH_MAX_ITEMS): for each address the same record as geoip_lookup and, with vpn: true, the vpn_detect record as `vpn`. Results come in the order given, one per address, duplicates included; an entry that is not an address gets its own INVALID_IP error in `results` while the others still answer. Offline, from the embedded data. Use it instead of many geoip_lookup calls, e.g. for the addresses of a log excerpt.',
    input: {
      ips: z
        .array(z.string())
        .describe(
          'The addresses, e.g. ["8.8.8.8", "2606:4700:4700::1111"]: IPv4 dotted quads without leading zeros or IPv6 without a zone.',
        ),
      vpn: z
        .boolean()
        .default(false)
        .describe('true: each record also holds `vpn`, the VPN/proxy/hosting detection record.'),
    },
    output: batchSchema,
    network: false,
    lookup: ({ ips, vpn }) => ({
      route: '/batch',
      body: JSON.stringify(ips),
      query: vpn ? { include: 'vpn' } : {},
    }),
    render: (r) =>
      r.results
        .map((item) =>
          'error' in item
            ? `${JSON.stringify(item.query)}: ${item.error.code} ${item.error.message}`
            : renderGeoIp(item.data) +
              (item.data.vpn === undefined
                ? ''
                : `; VPN ${yesNo(item.data.vpn.isVpn)}, proxy ${yesNo(item.data.vpn.isProxy)}, hosting ${yesNo(item.data.vpn.isHosting)}`),
        )
        .join('\n') || 'No addresses given.',
  }),
  defineTool({
    name: 'asn_lookup',
    title: 'Autonomous system profile',
    description:
      'What an autonomous system is: its name in the ASN data, the country where most of its IPv4 addresses are located, what VPN/hosting detection makes of it as a whole (classes vpn, hosting, mobile, isp, vpn-dense, with the reasons), the IPv4 and IPv6 prefixes the ASN data routes through it with their address counts, and the feeds listing addresses inside them. Offline, from the embedded data. Unknown AS numbers fail with NOT_FOUND.',
    input: {
      asn: z.string().describe('The AS number, e.g. "AS14061" or "13335".'),
    },
    output: asnProfileSchema,
    network: false,
    lookup: ({ asn }) => ({ route: '/asn/:asn', params: { asn } }),
    render: (r) =>
      `${r.asn} ${r.name ?? '(no name)'}${r.country === null ? '' : `, mostly in ${r.country}`}: ${r.prefixes.v4.length} IPv4 prefixes (${r.addresses.v4} addresses), ${r.prefixes.v6.length} IPv6 prefixes${r.classes.length > 0 ? `; classes ${r.classes.join(', ')}` : ''}${r.reasons.length > 0 ? ` (${r.reasons.join(', ')})` : ''}${r.feeds.length > 0 ? `; feeds ${r.feeds.join(', ')}` : ''}`,
  }),
  defineTool({
    name: 'ip_ranges',
    title: 'Address ranges matching a filter',
    description:
      'The CIDR blocks covering exactly the addresses that match every filter given: country (ISO codes, by GeoIP location), asn, kind (vpn, proxy, tor, relay, hosting, mobile, bogon) and provider; comma-separated values are alternatives; family 4 or 6. Answers the number of blocks and the first 1,000 of them; the whole list, in firewall formats (nftables, ipset, nginx geo, iptables-restore), is GET /ranges or `ipintel ranges`. Offline, from the embedded data.',
    input: {
      country: z.string().optional().describe('ISO 3166 alpha-2 codes, e.g. "RU" or "RU,BY".'),
      asn: z.string().optional().describe('AS numbers, e.g. "AS14061".'),
      kind: z.string().optional().describe('Kinds, e.g. "tor" or "vpn,proxy".'),
      provider: z.string().optional().describe('VPN or relay providers, e.g. "Mullvad".'),
      family: z.enum(['4', '6']).optional().describe('One family only.'),
    },
    output: rangeSummarySchema,
    network: false,
    lookup: (args) => ({
      route: '/ranges',
      query: Object.fromEntries(
        Object.entries(args).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ),
    }),
    render: (r) =>
      `${r.count} blocks match ${Object.entries(r.filter)
        .map(([k, v]) => `${k}=${v}`)
        .join(
          ' ',
        )}${r.count === 0 ? '' : `: ${r.ranges.slice(0, 20).join(', ')}${r.count > 20 ? ', …' : ''}`}`,
  }),
  defineTool({
    name: 'my_ip',
    title: 'My IP address',
    description:
      'The IP address this MCP client connects from, as ipintel sees it, with its GeoIP record (the same fields as geoip_lookup). Over the HTTP endpoint that is the caller’s public address (or a private one on a local network); over stdio the client is the local machine, so the answer is the loopback address (a bogon). Takes no arguments.',
    input: {},
    output: geoIpRecordSchema,
    network: false,
    lookup: () => ({ route: '/ip' }),
    render: (r) => `Your address as seen by ipintel: ${renderGeoIp(r)}`,
  }),
];
