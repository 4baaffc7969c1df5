// The JSON records the page reads, as the API's schemas define them
// (src/api/schemas.ts, src/api/lookup-schemas.ts; /openapi.json). Types only:
// this file is not served.
export interface GeoIpRecord {
  ip: string;
  country: string | null;
  city: string | null;
  region: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
  asn: string | null;
  org: string | null;
  bogon: boolean;
}

export interface VpnRecord {
  ip: string;
  isVpn: boolean;
  isProxy: boolean;
  isHosting: boolean;
  isMobile: boolean;
  isTor: boolean;
  confidence: string;
  reasons: string[];
}

export interface WhoisRecord {
  name: string | null;
  handle: string | null;
  startAddress: string | null;
  endAddress: string | null;
  cidrs: string[];
  country: string | null;
  registrant: string | null;
  type: string | null;
  registry: string | null;
  source: string;
  abuseEmail: string | null;
  events: { action: string; date: string }[];
}

export interface ReverseRecord {
  ptr: string;
  hostnames: string[];
}

export interface BlacklistRecord {
  sources: {
    name: string;
    listed: boolean;
    reason: string | null;
    error: string | null;
  }[];
}

export interface DnsRecords {
  records: { name: string; type: string; ttl: number; data: string }[];
}

export interface CidrRecord {
  cidr: string;
  network: string;
  broadcast: string;
  subnetMask: string;
  wildcardMask: string;
  firstHost: string;
  lastHost: string;
  totalHosts: number;
  usableHosts: number;
}
