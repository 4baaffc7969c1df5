// loadConfig(env) is the only reader of environment variables (docs/configuration.md's
// table). It returns one frozen, typed object or throws a ConfigError that
// names every bad variable, so start-up fails loudly instead of half-working.
import { isIP } from 'node:net';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_CACHE_MAX_BYTES } from './cache/cache-store.js';
import { parseCidr, type Cidr } from './net/cidr-match.js';
import { parseHostPort, type HostPort } from './net/host-port.js';
import {
  DEFAULT_FEEDS,
  feedOverridesFromEnv,
  resolveFeeds,
} from './lookups/vpn/feeds/default-feeds.js';
import { operatorGeofeeds } from './lookups/geofeed/geofeed-feeds.js';
import { DEFAULT_VPN_RANGE_RULE, type VpnRangeRule } from './lookups/vpn/index/vpn-ranges.js';
import type { FeedSpec } from './lookups/vpn/feeds/feed-updater.js';
import { dataUpdateFromEnv, type DataUpdateConfig } from './lookups/geoip/update/update-config.js';
import { PROJECT_ROOT } from './kit/project-root.js';
import { EXPORT_PARTS, type ExportPart } from './kit/export-files.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** How far X-Forwarded-For is believed: see src/http/client-ip.ts. */
export type TrustProxy =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'hops'; hops: number }
  | { kind: 'cidrs'; cidrs: readonly Cidr[] };

export interface Config {
  port: number;
  host: string;
  trustProxy: TrustProxy;
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  /** how long a worker or instance keeps a lease of a client's allowance (src/ratelimit/lease.ts) */
  rateLimitLeaseMs: number;
  redisUrl: string | null;
  cacheMaxEntries: number;
  /** bound of the in-process cache in (estimated) bytes */
  cacheMaxBytes: number;
  /** null: use the system's resolvers */
  dnsServers: readonly HostPort[] | null;
  dnsTimeoutMs: number;
  rdapBaseUrl: string | null;
  rdapTimeoutMs: number;
  whoisServer: HostPort | null;
  whoisTimeoutMs: number;
  dnsblZones: readonly string[];
  geoipDb: string | null;
  asnDb: string | null;
  /** the operator's GeoLite2 City file, reconciled with the GeoIP data (docs/data.md) */
  geolite2CityDb: string | null;
  dataDir: string;
  /** the operator's corrections (docs/overrides.md); absent is the same as empty */
  overridesFile: string;
  logLevel: LogLevel;
  workers: number;
  /** the VPN/hosting/Tor feeds `npm run update-data` fetches, URLs overridable per feed */
  feeds: readonly FeedSpec[];
  /** an open-proxy list's entries stop counting this long after its last successful fetch */
  proxyListMaxAgeMs: number;
  /** when VPN exits make their whole routed range a VPN range (vpn-ranges.ts) */
  vpnRangeRule: VpnRangeRule;
  feedTimeoutMs: number;
  feedMaxBytes: number;
  /** 0: feeds and GeoIP/ASN data are updated only by `npm run update-data` */
  feedUpdateIntervalHours: number;
  /** the GeoIP/ASN updates: source, URLs, MaxMind credentials, bounds, max age */
  dataUpdate: DataUpdateConfig;
  /** where `npm run update-data` refreshes the RDAP bootstrap (ipv4.json, ipv6.json); null: not refreshed */
  rdapBootstrapUrl: string | null;
  /** a client's whole request head must arrive within this (slowloris) */
  headersTimeoutMs: number;
  /** a client's whole request (head and body) must arrive within this */
  requestTimeoutMs: number;
  /** an idle keep-alive connection is closed after this; above a load balancer's idle timeout */
  keepAliveTimeoutMs: number;
  /** open connections per process; more are closed on accept. 0: no bound */
  maxConnections: number;
  /** plain GET/HEAD requests read and answered without node:http's per-request machinery (src/http/fast-path.ts) */
  fastPath: boolean;
  /** the most addresses one POST /batch may hold */
  batchMaxItems: number;
  /** API_KEYS_FILE: the CSV of API keys (docs/security.md); null: no keys, every caller anonymous */
  apiKeysFile: string | null;
  /** every request but /healthz, /readyz and the page's assets needs a valid API key */
  apiKeysRequired: boolean;
  /** the Bearer token /metrics asks for (on whichever port serves it); null: none */
  metricsToken: string | null;
  /** /metrics on a listener of its own (and 404 on the public port); null: on the public port */
  metricsPort: number | null;
  metricsHost: string;
  /** EXPORT_DIR: the export kept current there and served at /export/… (docs/export.md); null: off */
  exportDir: string | null;
  /** EXPORT_ONLY: the files of that export (as `ipintel export --only`) */
  exportParts: readonly ExportPart[];
}

/** The IANA RDAP bootstrap (RFC 9224), refreshed like a feed. */
const IANA_RDAP_BOOTSTRAP = 'https://data.iana.org/rdap/';
const BOOTSTRAP_FEED_ID = 'rdap-bootstrap';
/** FEEDS_DISABLED also names these data sets, which are not VPN feeds */
const NOT_FEEDS = [
  BOOTSTRAP_FEED_ID,
  'geoip',
  'asn',
  'geolite2-city',
  'ipinfo-lite',
  'ip2location-db11',
];

/** Live, free lists only (docs/configuration.md, "Default DNSBL zones", gives each list's policy). */
export const DEFAULT_DNSBL_ZONES = [
  'zen.spamhaus.org',
  'bl.spamcop.net',
  'dnsbl.dronebl.org',
  'bl.mailspike.net',
  'psbl.surriel.com',
  'all.s5h.net',
  'dnsbl-1.uceprotect.net',
] as const;

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const optionalPath = z
  .string()
  .trim()
  .min(1)
  .transform((p) => resolve(p));

const hostPort = (defaultPort: number) =>
  z.string().transform((text, ctx) => {
    const parsed = parseHostPort(text.trim(), defaultPort);
    if (!parsed) {
      ctx.addIssue({ code: 'custom', message: `"${text}" is not host, host:port or [ipv6]:port` });
      return z.NEVER;
    }
    return parsed;
  });

const envSchema = z.object({
  PORT: integer(0, 65535).default(8080),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      const parsed = parseTrustProxy(text);
      if (!parsed) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be true, false, a hop count or comma-separated CIDRs',
        });
        return z.NEVER;
      }
      return parsed;
    }),
  RATE_LIMIT_MAX: integer(1, 1_000_000_000).default(60),
  RATE_LIMIT_WINDOW_SECONDS: integer(1, 86_400 * 366).default(60),
  RATE_LIMIT_LEASE_MS: integer(0, 60_000).default(1_000),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })
    .optional(),
  CACHE_MAX_ENTRIES: integer(0, 100_000_000).default(50_000),
  CACHE_MAX_BYTES: integer(0, 64 * 1024 ** 3).default(DEFAULT_CACHE_MAX_BYTES),
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return null;
      const servers = text.split(',').map((s) => parseHostPort(s.trim(), 53));
      if (servers.some((s) => s === null || isIP(s.host) === 0)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be comma-separated ip, ip:port or [ipv6]:port',
        });
        return z.NEVER;
      }
      return servers as HostPort[];
    }),
  DNS_TIMEOUT_MS: integer(1, 60_000).default(2000),
  RDAP_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .transform((u) => (u.endsWith('/') ? u : `${u}/`))
    .optional(),
  RDAP_TIMEOUT_MS: integer(1, 120_000).default(5000),
  WHOIS_SERVER: hostPort(43).optional(),
  WHOIS_TIMEOUT_MS: integer(1, 120_000).default(5000),
  DNSBL_ZONES: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [...DEFAULT_DNSBL_ZONES];
      const zones = text
        .split(',')
        .map((s) => s.trim().toLowerCase().replace(/\.$/, ''))
        .filter((s) => s !== '');
      if (zones.length === 0) {
        ctx.addIssue({ code: 'custom', message: 'must name at least one DNS zone' });
        return z.NEVER;
      }
      const bad = zones.find(
        (zone) =>
          !/^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(
            zone,
          ),
      );
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `"${bad}" is not a DNS zone name` });
        return z.NEVER;
      }
      return zones;
    }),
  GEOIP_DB: optionalPath.optional(),
  ASN_DB: optionalPath.optional(),
  GEOLITE2_CITY_DB: optionalPath.optional(),
  DATA_DIR: optionalPath.optional(),
  OVERRIDES_FILE: optionalPath.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FEED_TIMEOUT_MS: integer(1, 600_000).default(60_000),
  FEED_MAX_BYTES: integer(1024, 1024 ** 3).default(64 * 1024 * 1024),
  FEED_UPDATE_INTERVAL_HOURS: integer(0, 24 * 365).default(0),
  PROXY_LIST_MAX_AGE_HOURS: integer(1, 24 * 90).default(48),
  VPN_RANGE_MIN_EXITS: integer(0, 1000).default(DEFAULT_VPN_RANGE_RULE.minExits),
  VPN_RANGE_MAX_PREFIX: integer(16, 32).default(
    32 - Math.log2(DEFAULT_VPN_RANGE_RULE.maxAddresses),
  ),
  HEADERS_TIMEOUT_MS: integer(100, 600_000).default(10_000),
  REQUEST_TIMEOUT_MS: integer(100, 3_600_000).default(30_000),
  KEEP_ALIVE_TIMEOUT_MS: integer(100, 3_600_000).default(65_000),
  MAX_CONNECTIONS: integer(0, 10_000_000).default(10_000),
  FAST_PATH: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .default(true),
  // a body is at most 1 MiB, ~100,000 short IPv4 addresses: more could never arrive
  BATCH_MAX_ITEMS: integer(1, 100_000).default(1000),
  API_KEYS_FILE: optionalPath.optional(),
  API_KEYS_REQUIRED: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .default(false),
  // a secret travels in a header: visible ASCII, and long enough not to be guessed
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 visible ASCII characters (no spaces)')
    .optional(),
  METRICS_PORT: integer(1, 65535).optional(),
  METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
  EXPORT_DIR: optionalPath.optional(),
  EXPORT_ONLY: z
    .string()
    .trim()
    .transform((v) => v.split(',').map((p) => p.trim()))
    .refine(
      (parts) =>
        parts.length > 0 && parts.every((p) => (EXPORT_PARTS as readonly string[]).includes(p)),
      `must be a comma-separated list of ${EXPORT_PARTS.join(', ')}`,
    )
    .transform((parts) => [...new Set(parts)] as ExportPart[])
    .default(['city', 'asn', 'anonymous-ip']),
  WORKERS: z
    .string()
    .trim()
    .regex(/^(auto|[1-9]\d{0,2})$/, 'must be auto or a number from 1 to 999')
    .transform((w) => (w === 'auto' ? Math.max(1, cpus().length) : Number(w)))
    .default(1),
});

/** Empty strings count as unset, as in most twelve-factor tools. */
function withoutEmpty(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

export function loadConfig(env: Readonly<Record<string, string | undefined>>): Readonly<Config> {
  const result = envSchema.safeParse(withoutEmpty(env));
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  let feeds: FeedSpec[] = [];
  const disabled = (env['FEEDS_DISABLED'] ?? '').split(',').map((id) => id.trim());
  const bootstrapUrl = parseBootstrapUrl(env['FEED_URL_RDAP_BOOTSTRAP'], problems);
  const dataUpdate = dataUpdateFromEnv(withoutEmpty(env), disabled, problems);
  try {
    // FEED_URL_<ID> (empty disables that feed) and FEEDS_DISABLED; the RDAP
    // bootstrap is one more data set that these variables switch off
    const overrides = feedOverridesFromEnv({
      ...env,
      FEEDS_DISABLED: disabled.filter((id) => !NOT_FEEDS.includes(id)).join(','),
    });
    feeds = resolveFeeds(overrides);
    // GEOFEED_URLS: the operator's own RFC 8805 geofeeds, after the known ones
    feeds.push(
      ...operatorGeofeeds(env['GEOFEED_URLS'] ?? '', new Set(DEFAULT_FEEDS.map((f) => f.id))),
    );
  } catch (error) {
    problems.push(
      `FEED_URL_* / FEEDS_DISABLED / GEOFEED_URLS: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (result.success && result.data.HEADERS_TIMEOUT_MS > result.data.REQUEST_TIMEOUT_MS) {
    problems.push('HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS');
  }
  if (result.success) problems.push(...securityProblems(result.data));
  if (!result.success || problems.length > 0 || dataUpdate === null) {
    throw new ConfigError(problems);
  }
  const e = result.data;
  const dataDir = e.DATA_DIR ?? join(PROJECT_ROOT, 'data');
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    trustProxy: e.TRUST_PROXY,
    rateLimitMax: e.RATE_LIMIT_MAX,
    rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    rateLimitLeaseMs: e.RATE_LIMIT_LEASE_MS,
    redisUrl: e.REDIS_URL ?? null,
    cacheMaxEntries: e.CACHE_MAX_ENTRIES,
    cacheMaxBytes: e.CACHE_MAX_BYTES,
    dnsServers: e.DNS_SERVERS,
    dnsTimeoutMs: e.DNS_TIMEOUT_MS,
    rdapBaseUrl: e.RDAP_BASE_URL ?? null,
    rdapTimeoutMs: e.RDAP_TIMEOUT_MS,
    whoisServer: e.WHOIS_SERVER ?? null,
    whoisTimeoutMs: e.WHOIS_TIMEOUT_MS,
    dnsblZones: e.DNSBL_ZONES,
    geoipDb: e.GEOIP_DB ?? null,
    asnDb: e.ASN_DB ?? null,
    geolite2CityDb: e.GEOLITE2_CITY_DB ?? null,
    dataDir,
    overridesFile: e.OVERRIDES_FILE ?? join(dataDir, 'overrides.csv'),
    logLevel: e.LOG_LEVEL,
    workers: e.WORKERS,
    feeds,
    feedTimeoutMs: e.FEED_TIMEOUT_MS,
    feedMaxBytes: e.FEED_MAX_BYTES,
    feedUpdateIntervalHours: e.FEED_UPDATE_INTERVAL_HOURS,
    proxyListMaxAgeMs: e.PROXY_LIST_MAX_AGE_HOURS * 3600_000,
    vpnRangeRule: {
      minExits: e.VPN_RANGE_MIN_EXITS,
      maxAddresses: 2 ** (32 - e.VPN_RANGE_MAX_PREFIX),
    },
    dataUpdate,
    rdapBootstrapUrl: disabled.includes(BOOTSTRAP_FEED_ID) ? null : bootstrapUrl,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: e.MAX_CONNECTIONS,
    fastPath: e.FAST_PATH,
    batchMaxItems: e.BATCH_MAX_ITEMS,
    apiKeysFile: e.API_KEYS_FILE ?? null,
    apiKeysRequired: e.API_KEYS_REQUIRED,
    metricsToken: e.METRICS_TOKEN ?? null,
    metricsPort: e.METRICS_PORT ?? null,
    metricsHost: e.METRICS_HOST,
    exportDir: e.EXPORT_DIR ?? null,
    exportParts: e.EXPORT_ONLY,
  });
}

/** Combinations of the access settings that cannot be what the operator meant. */
function securityProblems(e: {
  API_KEYS_FILE?: string | undefined;
  API_KEYS_REQUIRED: boolean;
  METRICS_PORT?: number | undefined;
  PORT: number;
}): string[] {
  const problems: string[] = [];
  if (e.API_KEYS_REQUIRED && e.API_KEYS_FILE === undefined) {
    problems.push('API_KEYS_REQUIRED: true needs API_KEYS_FILE (the keys that are accepted)');
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT) {
    problems.push('METRICS_PORT: must differ from PORT');
  }
  return problems;
}

function parseBootstrapUrl(text: string | undefined, problems: string[]): string | null {
  if (text === undefined) return IANA_RDAP_BOOTSTRAP;
  const value = text.trim();
  if (value === '') return null;
  if (!/^https?:\/\/[^\s]+\/$/.test(value)) {
    problems.push(
      'FEED_URL_RDAP_BOOTSTRAP: must be an http(s) URL ending with "/" (ipv4.json and ipv6.json are fetched below it), or empty to disable',
    );
    return null;
  }
  return value;
}

function parseTrustProxy(text: string | undefined): TrustProxy | null {
  const value = text?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false') return { kind: 'none' };
  if (value === 'true') return { kind: 'all' };
  if (/^\d{1,3}$/.test(value)) {
    const hops = Number(value);
    return hops === 0 ? { kind: 'none' } : { kind: 'hops', hops };
  }
  const cidrs = value.split(',').map((part) => parseCidr(part.trim()));
  if (cidrs.some((c) => c === null)) return null;
  return { kind: 'cidrs', cidrs: cidrs as Cidr[] };
}
