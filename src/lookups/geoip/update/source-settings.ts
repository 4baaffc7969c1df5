// What the GeoIP/ASN update settings name: the data sources, the ip-location-db
// ASN sets and the settings a release plan is made from. Their own module, so
// that the configuration (update-config.ts, read by src/config.ts) and the
// updater (sources.ts and what it leads to: the compiler, which reads the
// project root) both import them from below, and no import runs in a circle.

export type DataSourceName = 'ip-location-db' | 'dbip' | 'maxmind';
export type AsnSetName = 'origin-asn' | 'iptoasn-asn' | 'dbip-asn';

export const SOURCES: readonly DataSourceName[] = ['ip-location-db', 'dbip', 'maxmind'];
export const ASN_SETS: readonly AsnSetName[] = ['origin-asn', 'iptoasn-asn', 'dbip-asn'];

export interface SourceSettings {
  source: DataSourceName;
  baseUrl: string;
  checksumBaseUrl: string;
  asnSet: AsnSetName;
  dbipBaseUrl: string;
  maxmindBaseUrl: string;
  /** required for maxmind; kept out of every message and log line */
  maxmind: { accountId: string; licenseKey: string } | null;
}
