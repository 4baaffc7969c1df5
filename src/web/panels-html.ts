// The lookups the server renders into the page itself, so the first view
// needs no script: the caller's GeoIP and VPN verdict, and for `/?q=` the
// in-memory lookups of the query (GeoIP and VPN of an address, CIDR math of
// a range). web/page.js renders the same panels from the API's JSON.
import type { z } from 'zod';
import type { cidrRecordSchema, geoIpRecordSchema } from '../api/schemas.js';
import type { vpnRecordSchema } from '../api/lookup-schemas.js';
import {
  attributionLine,
  curlLine,
  definitionList,
  escape,
  withKey,
  type Attribution,
} from './html.js';

export type GeoIpRecord = z.infer<typeof geoIpRecordSchema>;
export type VpnRecord = z.infer<typeof vpnRecordSchema>;
export type CidrRecord = z.infer<typeof cidrRecordSchema>;

/** made at the first page that names a country: ICU's region names cost ~20 ms of every start-up otherwise */
let regionNames: Intl.DisplayNames | null = null;

/** "United States (US)", or the code alone when ICU does not know it. */
export function countryName(code: string | null): string | null {
  if (code === null) return null;
  let name: string | undefined;
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
    name = regionNames.of(code);
  } catch {
    name = undefined;
  }
  return name === undefined || name === code ? code : `${name} (${code})`;
}

export function network(record: { asn: string | null; org: string | null }): string | null {
  if (record.asn === null) return record.org;
  return record.org === null ? record.asn : `${record.asn} ${record.org}`;
}

export function geoRows(geo: GeoIpRecord): [string, string | number | null][] {
  const coordinates =
    geo.latitude === null || geo.longitude === null ? null : `${geo.latitude}, ${geo.longitude}`;
  return [
    ['Country', countryName(geo.country)],
    ['Region', geo.region],
    ['City', geo.city],
    ['Time zone', geo.timezone],
    ['Coordinates', coordinates],
    ['Network', network(geo)],
  ];
}

const FLAGS = [
  ['isVpn', 'VPN'],
  ['isProxy', 'proxy'],
  ['isTor', 'Tor exit'],
  ['isRelay', 'privacy relay'],
  ['isHosting', 'hosting'],
  ['isMobile', 'mobile network'],
] as const;

/** "VPN, hosting (confidence high)" or "No VPN, proxy or hosting signal (confidence low)". */
export function verdict(vpn: VpnRecord): string {
  const flags = FLAGS.filter(([key]) => vpn[key]).map(([, label]) => label);
  const said = flags.length === 0 ? 'No VPN, proxy or hosting signal' : flags.join(', ');
  const service = vpn.provider === null ? '' : `: ${vpn.provider}`;
  return `${said[0]?.toUpperCase() ?? ''}${said.slice(1)}${service} (confidence ${vpn.confidence})`;
}

export function vpnBody(vpn: VpnRecord): string {
  const reasons =
    vpn.reasons.length === 0
      ? '<p>Reasons: none</p>'
      : `<p>Reasons:</p><ul class="reasons">${vpn.reasons.map((r) => `<li><code>${escape(r)}</code></li>`).join('')}</ul>`;
  return `<p class="verdict">${escape(verdict(vpn))}</p>${reasons}`;
}

export interface PanelHtml {
  lookup: string;
  title: string;
  body: string;
  path: string;
  attributions?: readonly Attribution[];
}

/** One lookup's panel: title, result (or the API's error message), attribution, curl (with the page's key). */
export function panel(p: PanelHtml, origin: string, key: string | null = null): string {
  return `<section class="panel" data-lookup="${escape(p.lookup)}"><h3>${escape(p.title)}</h3>${p.body}${attributionLine(p.attributions ?? [])}${curlLine(origin, withKey(p.path, key))}</section>`;
}

export function errorBody(message: string): string {
  return `<p class="error" role="alert">${escape(message)}</p>`;
}

export function geoBody(geo: GeoIpRecord, bogonPurpose: string | null): string {
  if (geo.bogon) {
    return `<p class="bogon">${escape(geo.ip)} is a ${escape(bogonPurpose ?? 'special-purpose')} address: it has no public location or network.</p>`;
  }
  return definitionList(geoRows(geo));
}

export function cidrBody(cidr: CidrRecord): string {
  return definitionList([
    ['Range', cidr.cidr],
    ['Network', cidr.network],
    ['Broadcast', cidr.broadcast],
    ['Subnet mask', cidr.subnetMask],
    ['Wildcard mask', cidr.wildcardMask],
    ['First host', cidr.firstHost],
    ['Last host', cidr.lastHost],
    ['Addresses', cidr.totalHosts],
    ['Usable hosts', cidr.usableHosts],
  ]);
}
