// The whole HTTP API in one list: method, path, whether the client's rate
// limit counts it, how long its answers live (for clients, and in the lookup
// cache for answers that ask an upstream) and who answers. Each handler's
// documentation, schemas and lookup live in its own module.
import type { AnyHandler, AnyRoute } from '../http/route.js';
import { route } from '../http/route.js';
import { IPINFO_FIELDS } from '../api/compat/ipinfo.js';
import { COMPAT_LIFETIME, type CompatHandlers } from './compat-routes.js';
import { CALLER_LIFETIME, GEOIP_LIFETIME } from './geoip-routes.js';
import { NETWORK_CACHE } from './network-routes.js';
import { VPN_LIFETIME } from './vpn-routes.js';

export interface Handlers {
  ops: Record<'info' | 'health' | 'ready' | 'metrics' | 'openApi', AnyHandler>;
  geoip: Record<'caller' | 'address', AnyHandler>;
  vpn: Record<'detect', AnyHandler>;
  network: Record<'dns' | 'reverse' | 'blacklist' | 'whois', AnyHandler>;
  cidr: Record<'calculate', AnyHandler>;
  mcp: Record<'endpoint', AnyHandler>;
  batch: Record<'lookup', AnyHandler>;
  /** EXPORT_DIR's files (src/routes/export-routes.ts) */
  export: Record<'file', AnyHandler>;
  /** range lists and AS profiles (src/routes/range-routes.ts) */
  ranges: Record<'ranges' | 'asn', AnyHandler>;
  /** ipinfo, ip-api and MaxMind GeoIP2 formats over the same records (src/routes/compat-routes.ts) */
  compat: CompatHandlers;
  /** the web page: GET / for browsers over a JSON handler for everyone else, and its files */
  page: { home: (json: AnyHandler) => AnyHandler; asset: AnyHandler };
}

const LIMITED = { limited: true } as const;
const FREE = { limited: false } as const;
/** not counted; METRICS_TOKEN (or, keys required, an API key) guards it */
const OPERATOR = { limited: false, operator: true } as const;

export function routeTable(h: Handlers): AnyRoute[] {
  const { ops, geoip, vpn, network, cidr, mcp, batch, page } = h;
  const exported = h.export;
  return [
    route('GET', '/', page.home(ops.info), LIMITED),
    // static, immutable and cached by the browser: not counted, like /healthz
    route('GET', '/assets/:file', page.asset, FREE),
    route('GET', '/healthz', ops.health, FREE),
    route('GET', '/readyz', ops.ready, FREE),
    route('GET', '/metrics', ops.metrics, OPERATOR),
    route('GET', '/export/:file', exported.file, OPERATOR),
    route('GET', '/openapi.json', ops.openApi, LIMITED),
    // in-memory data: computed per request, no server-side cache
    route('GET', '/ip', geoip.caller, { ...LIMITED, lifetime: CALLER_LIFETIME }),
    route('GET', '/ip/:ip', geoip.address, { ...LIMITED, lifetime: GEOIP_LIFETIME }),
    route('GET', '/ip/:ip/vpn', vpn.detect, { ...LIMITED, lifetime: VPN_LIFETIME }),
    // upstream lookups: through the lookup cache (X-Cache)
    route('GET', '/dns/:domain', network.dns, { ...LIMITED, cache: NETWORK_CACHE.dns }),
    route('GET', '/dns/:ip/reverse', network.reverse, { ...LIMITED, cache: NETWORK_CACHE.reverse }),
    route('GET', '/blacklist/:ip', network.blacklist, {
      ...LIMITED,
      cache: NETWORK_CACHE.blacklist,
    }),
    route('GET', '/whois/:ip', network.whois, { ...LIMITED, cache: NETWORK_CACHE.whois }),
    route('GET', '/cidr', cidr.calculate, LIMITED),
    route('POST', '/mcp', mcp.endpoint, LIMITED),
    // GeoIP/VPN of many addresses: one rate-limit unit per request (local lookups)
    route('POST', '/batch', batch.lookup, LIMITED),
    // lists for firewalls: one rate-limit unit per list, however long
    route('GET', '/ranges', h.ranges.ranges, LIMITED),
    route('GET', '/asn/:asn', h.ranges.asn, { ...LIMITED, lifetime: VPN_LIFETIME }),
    ...compatRoutes(h.compat),
  ];
}

/** The compatible surfaces: counted, keyed and cached as /ip is (docs/api.md, "Compatible formats"). */
function compatRoutes(compat: CompatHandlers): AnyRoute[] {
  const address = { ...LIMITED, lifetime: COMPAT_LIFETIME };
  const caller = { ...LIMITED, lifetime: { ...COMPAT_LIFETIME, visibility: 'private' as const } };
  const { ipinfo, ipApi, geoip2 } = compat;
  return [
    route('GET', '/ipinfo', ipinfo.caller, caller),
    route('GET', '/ipinfo/json', ipinfo.caller, caller),
    route('POST', '/ipinfo/batch', ipinfo.batch, LIMITED),
    // the caller's fields (/ipinfo/ip, /ipinfo/city, …) before /ipinfo/:ip takes the name as an address
    ...IPINFO_FIELDS.map((field) =>
      route('GET', `/ipinfo/${field}`, ipinfo.callerField(field), LIMITED),
    ),
    route('GET', '/ipinfo/:ip', ipinfo.address, address),
    route('GET', '/ipinfo/:ip/json', ipinfo.address, address),
    route('GET', '/ipinfo/:ip/:field', ipinfo.addressField, LIMITED),
    route('GET', '/ip-api/json', ipApi.caller, caller),
    route('GET', '/ip-api/json/:ip', ipApi.address, address),
    route('POST', '/ip-api/batch', ipApi.batch, LIMITED),
    ...(['country', 'city', 'insights'] as const).flatMap((service) => [
      route('GET', `/geoip/v2.1/${service}/me`, geoip2[service].caller, caller),
      route('GET', `/geoip/v2.1/${service}/:ip`, geoip2[service].address, address),
    ]),
  ];
}

/** The table of the METRICS_PORT listener: the operator's endpoints (/metrics, /export/…) alone. */
export function metricsTable(ops: Handlers['ops'], exported: Handlers['export']): AnyRoute[] {
  return [
    route('GET', '/metrics', ops.metrics, OPERATOR),
    route('GET', '/export/:file', exported.file, OPERATOR),
  ];
}
