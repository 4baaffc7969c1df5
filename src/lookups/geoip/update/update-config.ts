// The GeoIP/ASN update settings from the environment (called by
// src/config.ts, the only reader of process.env): which source, its URLs
// (all overridable, for mirrors and loopback tests), MaxMind's credentials
// and IPinfo's and IP2Location's tokens, the bounds of a download and the age past which
// /readyz warns.
import { z } from 'zod';
import type { DataSetKind } from '../compiled-set.js';
import {
  ASN_SETS,
  SOURCES,
  type AsnSetName,
  type DataSourceName,
  type SourceSettings,
} from './source-settings.js';

/** A credential that never prints: logs, JSON and inspect show "[redacted]". */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[redacted]';
  }
}

export interface DataUpdateConfig {
  /** without the MaxMind credentials, which are in `maxmindLicenseKey` */
  settings: Omit<SourceSettings, 'maxmind'>;
  maxmindAccountId: string | null;
  maxmindLicenseKey: Secret | null;
  /** geoip and asn unless FEEDS_DISABLED names them */
  kinds: readonly DataSetKind[];
  /**
   * GeoLite2 City fetched as the second location source (geolite2-update.ts):
   * MaxMind's credentials set while DATA_SOURCE is not maxmind (GeoLite2 is
   * the GeoIP data then), unless FEEDS_DISABLED names geolite2-city
   */
  geolite2City: boolean;
  /**
   * IPinfo Lite fetched as an uncalibrated location source
   * (ipinfo-lite-update.ts): IPINFO_TOKEN set, unless FEEDS_DISABLED names
   * ipinfo-lite; the file is `${baseUrl}/ipinfo_lite.mmdb?token=…`
   */
  ipinfoLite: { baseUrl: string; token: Secret } | null;
  /**
   * IP2Location LITE DB11 fetched as an uncalibrated location source
   * (db11-update.ts): IP2LOCATION_TOKEN set, unless FEEDS_DISABLED names
   * ip2location-db11; the files are `${baseUrl}/?token=…&file=DB11LITECSV` (and …IPV6)
   */
  ip2location: { baseUrl: string; token: Secret } | null;
  timeoutMs: number;
  maxBytes: number;
  /** /readyz warns about a data set older than this */
  maxAgeDays: number;
}

const RELEASES = 'https://github.com/sapics/ip-location-db/releases/download';

/** http(s), or file:// for a folder of release files carried into an air-gapped site */
const url = z
  .url({ protocol: /^(https?|file)$/, error: 'must be an http://, https:// or file:// URL' })
  .transform((u) => u.replace(/\/+$/, ''));
const whole = (min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);

const schema = z.object({
  DATA_SOURCE: z.enum(SOURCES as [DataSourceName, ...DataSourceName[]]).default('ip-location-db'),
  DATA_BASE_URL: url.default(`${RELEASES}/latest`),
  DATA_CHECKSUM_BASE_URL: url.default(`${RELEASES}/checksum`),
  DATA_ASN_SET: z.enum(ASN_SETS as [AsnSetName, ...AsnSetName[]]).default('origin-asn'),
  DBIP_BASE_URL: url.default('https://download.db-ip.com/free'),
  MAXMIND_BASE_URL: url.default('https://download.maxmind.com/geoip/databases'),
  MAXMIND_ACCOUNT_ID: z
    .string()
    .trim()
    .regex(/^\d{1,12}$/, 'must be a number')
    .optional(),
  MAXMIND_LICENSE_KEY: z.string().trim().min(1).optional(),
  IPINFO_BASE_URL: url.default('https://ipinfo.io/data'),
  IPINFO_TOKEN: z.string().trim().min(1).optional(),
  IP2LOCATION_BASE_URL: url.default('https://www.ip2location.com/download'),
  IP2LOCATION_TOKEN: z.string().trim().min(1).optional(),
  DATA_TIMEOUT_MS: whole(1000, 24 * 3_600_000, 600_000),
  DATA_MAX_BYTES: whole(1024, 16 * 1024 ** 3, 1024 ** 3),
  DATA_MAX_AGE_DAYS: whole(1, 3650, 45),
});

/** Problems are pushed to `problems` (never with the licence key's value). */
export function dataUpdateFromEnv(
  env: Readonly<Record<string, string>>,
  disabled: readonly string[],
  problems: string[],
): DataUpdateConfig | null {
  const result = schema.safeParse(env);
  if (!result.success) {
    // zod's messages name the rule, not the value, so a bad key is not echoed
    for (const issue of result.error.issues)
      problems.push(`${issue.path.join('.')}: ${issue.message}`);
    return null;
  }
  const e = result.data;
  if (
    e.DATA_SOURCE === 'maxmind' &&
    (e.MAXMIND_ACCOUNT_ID === undefined || e.MAXMIND_LICENSE_KEY === undefined)
  ) {
    problems.push(
      'DATA_SOURCE=maxmind: MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY must both be set',
    );
    return null;
  }
  return {
    settings: {
      source: e.DATA_SOURCE,
      baseUrl: e.DATA_BASE_URL,
      checksumBaseUrl: e.DATA_CHECKSUM_BASE_URL,
      asnSet: e.DATA_ASN_SET,
      dbipBaseUrl: e.DBIP_BASE_URL,
      maxmindBaseUrl: e.MAXMIND_BASE_URL,
    },
    maxmindAccountId: e.MAXMIND_ACCOUNT_ID ?? null,
    maxmindLicenseKey:
      e.MAXMIND_LICENSE_KEY === undefined ? null : new Secret(e.MAXMIND_LICENSE_KEY),
    kinds: (['geoip', 'asn'] as const).filter((k) => !disabled.includes(k)),
    geolite2City:
      e.DATA_SOURCE !== 'maxmind' &&
      e.MAXMIND_ACCOUNT_ID !== undefined &&
      e.MAXMIND_LICENSE_KEY !== undefined &&
      !disabled.includes('geolite2-city'),
    ipinfoLite:
      e.IPINFO_TOKEN === undefined || disabled.includes('ipinfo-lite')
        ? null
        : { baseUrl: e.IPINFO_BASE_URL, token: new Secret(e.IPINFO_TOKEN) },
    ip2location:
      e.IP2LOCATION_TOKEN === undefined || disabled.includes('ip2location-db11')
        ? null
        : { baseUrl: e.IP2LOCATION_BASE_URL, token: new Secret(e.IP2LOCATION_TOKEN) },
    timeoutMs: e.DATA_TIMEOUT_MS,
    maxBytes: e.DATA_MAX_BYTES,
    maxAgeDays: e.DATA_MAX_AGE_DAYS,
  };
}

/** The source settings with the credentials revealed: only for the download itself. */
export function sourceSettings(c: DataUpdateConfig): SourceSettings {
  return {
    ...c.settings,
    maxmind:
      c.maxmindAccountId === null || c.maxmindLicenseKey === null
        ? null
        : { accountId: c.maxmindAccountId, licenseKey: c.maxmindLicenseKey.reveal() },
  };
}
