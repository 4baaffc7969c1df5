// The JSON records the page reads: the API's own schemas (src/api/), so the
// page's types follow the API. Types only: this file is not served.
import type { z } from 'zod';
import type { cidrRecordSchema, geoIpRecordSchema } from '../src/api/schemas.js';
import type {
  blacklistSchema,
  dnsRecordsSchema,
  reverseDnsSchema,
  vpnRecordSchema,
  whoisRecordSchema,
} from '../src/api/lookup-schemas.js';

export type GeoIpRecord = z.infer<typeof geoIpRecordSchema>;
export type VpnRecord = z.infer<typeof vpnRecordSchema>;
export type WhoisRecord = z.infer<typeof whoisRecordSchema>;
export type ReverseRecord = z.infer<typeof reverseDnsSchema>;
export type BlacklistRecord = z.infer<typeof blacklistSchema>;
export type DnsRecords = z.infer<typeof dnsRecordsSchema>;
export type CidrRecord = z.infer<typeof cidrRecordSchema>;
