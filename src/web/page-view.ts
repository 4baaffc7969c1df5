// What the server puts into the page before any script runs: the caller's
// records, and for /?q=… the lookups answered from memory (GeoIP and VPN of
// an address, CIDR math of a range), each fetched through the same route
// handlers as the API (App.call), so the page says what the API says.
import type { RawInput } from '../app.js';
import { AppError } from '../kit/errors.js';
import type { RequestContext } from '../http/route.js';
import { bogonRangeOf } from '../net/special-purpose.js';
import type { Attribution } from './html.js';
import type { CallerView } from './page-html.js';
import {
  cidrContent,
  errorBody,
  geoBody,
  vpnContent,
  type CidrRecord,
  type GeoIpRecord,
  type PanelHtml,
  type VpnRecord,
} from './panels-html.js';
import { parseIp } from '../net/ip.js';
import { lookupsOf, queryKind } from '../../web/render.js';

export type Lookup = (path: string, raw: RawInput, ctx: RequestContext) => Promise<unknown>;

export interface Attributions {
  geo: readonly Attribution[];
  vpn: readonly Attribution[];
}

export async function callerView(
  lookup: Lookup,
  ctx: RequestContext,
  attributions: Attributions,
): Promise<CallerView> {
  const ip = ctx.clientIp;
  const [geo, vpn] = await Promise.all([
    lookup('/ip', {}, ctx) as Promise<GeoIpRecord>,
    lookup('/ip/:ip/vpn', { params: { ip: ip.text } }, ctx) as Promise<VpnRecord>,
  ]);
  return {
    geo,
    vpn,
    bogonPurpose: bogonRangeOf(ip)?.purpose ?? null,
    geoAttributions: geo.bogon ? [] : attributions.geo,
    vpnAttributions: attributions.vpn,
  };
}

export interface QueryView {
  panels: PanelHtml[];
  note: string | null;
  located: GeoIpRecord | null;
}

const SCRIPT_NOTE =
  'lookups that ask other servers (registry, reverse DNS, blacklists, DNS records) run in the page’s script; without it, use the curl commands.';

/** The API's message of a refused lookup; anything else is a bug and propagates. */
/** The panel's name, title and API path of one lookup of `query`, as the page script has them. */
function described(query: string, name: string): { lookup: string; title: string; path: string } {
  const found = lookupsOf(query).find((l) => l.lookup === name);
  if (found === undefined) throw new Error(`no ${name} lookup for ${JSON.stringify(query)}`);
  return { lookup: found.lookup, title: found.title, path: found.path };
}

async function attempt<T>(run: () => Promise<T>): Promise<T | AppError> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

export async function queryView(
  lookup: Lookup,
  query: string,
  ctx: RequestContext,
  attributions: Attributions,
): Promise<QueryView> {
  if (query === '') return { panels: [], note: null, located: null };
  const kind = queryKind(query);
  if (kind === 'domain') {
    return { panels: [], note: `DNS records of ${query}: ${SCRIPT_NOTE}`, located: null };
  }
  if (kind === 'cidr') {
    const cidr = await attempt(
      () => lookup('/cidr', { query: { range: query } }, ctx) as Promise<CidrRecord>,
    );
    const body = cidr instanceof AppError ? [errorBody(cidr.message)] : cidrContent(cidr);
    return {
      panels: [{ ...described(query, 'cidr'), body }],
      note: null,
      located: null,
    };
  }
  const raw = { params: { ip: query } };
  const [geo, vpn] = await Promise.all([
    attempt(() => lookup('/ip/:ip', raw, ctx) as Promise<GeoIpRecord>),
    attempt(() => lookup('/ip/:ip/vpn', raw, ctx) as Promise<VpnRecord>),
  ]);
  const ip = parseIp(query);
  const bogonPurpose = ip === null ? null : (bogonRangeOf(ip)?.purpose ?? null);
  const panels: PanelHtml[] = [
    {
      ...described(query, 'geoip'),
      body: geo instanceof AppError ? [errorBody(geo.message)] : geoBody(geo, bogonPurpose),
      attributions: geo instanceof AppError || geo.bogon ? [] : attributions.geo,
    },
    {
      ...described(query, 'vpn'),
      body: vpn instanceof AppError ? [errorBody(vpn.message)] : vpnContent(vpn),
      attributions: vpn instanceof AppError ? [] : attributions.vpn,
    },
  ];
  if (geo instanceof AppError) {
    // a malformed address: every lookup would say the same
    return { panels: panels.slice(0, 1), note: null, located: null };
  }
  return { panels, note: `Other ${SCRIPT_NOTE}`, located: geo };
}
