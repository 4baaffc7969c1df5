// RDAP bootstrap (RFC 9224): which registry's RDAP server answers for an
// address. Longest-prefix match over the IANA services, as openrdap's
// net_registry.go does; the offline snapshot is the default and
// refreshBootstrap() rebuilds the table from IANA's current files.
import { AppError } from '../../kit/errors.js';
import { cidrContains, parseCidr, type Cidr } from '../../net/cidr-match.js';
import type { Ip } from '../../net/ip.js';
import {
  IPV4_SLASH8,
  IPV6_PREFIXES,
  SNAPSHOT_PUBLICATION,
  expandSlash8,
} from './bootstrap-snapshot.js';
import { isRecord } from './json-shape.js';
import { getJson, type FetchFn } from './rdap-http.js';
import { REGISTRIES, RIRS, rirFromUrl } from './registries.js';
import type { Rir } from './types.js';

export interface BootstrapEntry {
  readonly cidr: Cidr;
  /** ends with "/" so that `${baseUrl}ip/<ip>` is the query (RFC 9082 §3.1.1) */
  readonly baseUrl: string;
  readonly rir: Rir | null;
}

export interface BootstrapTable {
  /** most specific first, so the first match is the longest prefix */
  readonly entries: readonly BootstrapEntry[];
  readonly publication: { readonly ipv4: string | null; readonly ipv6: string | null };
}

export const IANA_BOOTSTRAP_URLS = {
  ipv4: 'https://data.iana.org/rdap/ipv4.json',
  ipv6: 'https://data.iana.org/rdap/ipv6.json',
} as const;

export function buildTable(
  entries: readonly BootstrapEntry[],
  publication: BootstrapTable['publication'],
): BootstrapTable {
  const sorted = [...entries].sort((a, b) => b.cidr.prefixLength - a.cidr.prefixLength);
  return { entries: sorted, publication };
}

export function snapshotBootstrap(): BootstrapTable {
  const entries: BootstrapEntry[] = [];
  for (const rir of RIRS) {
    const baseUrl = REGISTRIES[rir].rdapBaseUrl;
    const prefixes = [...expandSlash8(IPV4_SLASH8[rir]), ...IPV6_PREFIXES[rir].split(' ')];
    for (const text of prefixes) {
      const cidr = parseCidr(text);
      if (cidr === null) throw new Error(`bad prefix in the bootstrap snapshot: ${text}`);
      entries.push({ cidr, baseUrl, rir });
    }
  }
  return buildTable(entries, SNAPSHOT_PUBLICATION);
}

export function findRegistry(table: BootstrapTable, ip: Ip): BootstrapEntry | null {
  return table.entries.find((entry) => cidrContains(entry.cidr, ip)) ?? null;
}

/**
 * Parses one IANA bootstrap file (`{services: [[[prefixes…], [urls…]], …]}`).
 * Entries of the wrong family, unparsable prefixes and services without an
 * http(s) URL are skipped; a file with no usable entry at all is refused so a
 * broken download never empties the table.
 */
export function parseIanaBootstrap(json: unknown, version: 4 | 6): BootstrapEntry[] {
  const services = isRecord(json) && Array.isArray(json.services) ? json.services : null;
  if (services === null) {
    throw new AppError('UPSTREAM_ERROR', 'The IANA bootstrap file has no "services" array.');
  }
  const entries: BootstrapEntry[] = [];
  for (const service of services as unknown[]) {
    if (!Array.isArray(service) || !Array.isArray(service[0]) || !Array.isArray(service[1])) {
      continue;
    }
    const baseUrl = preferredUrl(service[1] as unknown[]);
    if (baseUrl === null) continue;
    for (const prefix of service[0] as unknown[]) {
      const cidr = typeof prefix === 'string' ? parseCidr(prefix) : null;
      if (cidr !== null && cidr.version === version) {
        entries.push({ cidr, baseUrl, rir: rirFromUrl(baseUrl) });
      }
    }
  }
  if (entries.length === 0) {
    throw new AppError('UPSTREAM_ERROR', `The IANA IPv${version} bootstrap file has no entries.`);
  }
  return entries;
}

/** RFC 9224 §3: with several URLs, https is preferred. Ensures a trailing "/". */
function preferredUrl(urls: readonly unknown[]): string | null {
  const usable = urls.filter(
    (u): u is string => typeof u === 'string' && /^https?:\/\/[^/\s]+/i.test(u),
  );
  const chosen = usable.find((u) => /^https:/i.test(u)) ?? usable[0];
  if (chosen === undefined) return null;
  return chosen.endsWith('/') ? chosen : `${chosen}/`;
}

export interface RefreshOptions {
  fetch: FetchFn;
  timeoutMs: number;
  urls?: { ipv4: string; ipv6: string };
}

/** Downloads IANA's ipv4.json and ipv6.json and builds a new table. */
export async function refreshBootstrap(options: RefreshOptions): Promise<BootstrapTable> {
  const urls = options.urls ?? IANA_BOOTSTRAP_URLS;
  const http = {
    fetch: options.fetch,
    signal: AbortSignal.timeout(options.timeoutMs),
    // IANA's files are ~10 KB; 1 MiB leaves room for growth, not for abuse
    maxBytes: 1 << 20,
    maxRedirects: 3,
  };
  const [v4, v6] = await Promise.all([getJson(urls.ipv4, http), getJson(urls.ipv6, http)]);
  const entries = [...parseIanaBootstrap(v4.json, 4), ...parseIanaBootstrap(v6.json, 6)];
  return buildTable(entries, { ipv4: publicationOf(v4.json), ipv6: publicationOf(v6.json) });
}

function publicationOf(json: unknown): string | null {
  return isRecord(json) && typeof json.publication === 'string' ? json.publication : null;
}
