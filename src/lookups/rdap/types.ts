// The Whois record plus the extras documented in docs/api.md
// section on /whois/:ip. Every field is present; unknown is null, never
// undefined (docs/api.md, "Records").

/** The five Regional Internet Registries that hold IP address space. */
export type Rir = 'arin' | 'ripe' | 'apnic' | 'lacnic' | 'afrinic';

export interface WhoisEvent {
  /** lower-cased RDAP eventAction (IANA "RDAP JSON Values"), e.g. "registration" */
  action: string;
  /** ISO 8601 timestamp with an offset (`Z` or `±hh:mm`) */
  date: string;
}

export interface WhoisRecord {
  ip: string;
  /** network name (ARIN NetName, RPSL netname; LACNIC/AFRINIC RDAP put the org there) */
  name: string | null;
  handle: string | null;
  startAddress: string | null;
  endAddress: string | null;
  /** ISO 3166 alpha-2, upper case; `ZZ` (unknown) becomes null */
  country: string | null;
  registrant: string | null;
  events: WhoisEvent[];
  // ---- documented extras ----
  /** the block as CIDR prefixes (cidr0_cidrs, or computed from start/end); [] when unknown */
  cidrs: string[];
  /** allocation type as the registry writes it, e.g. "DIRECT ALLOCATION", "ASSIGNED PA" */
  type: string | null;
  parentHandle: string | null;
  /** the registry that answered, when known */
  registry: Rir | null;
  /** which protocol produced the record */
  source: 'rdap' | 'whois';
  abuseEmail: string | null;
}

/** What a parser found; the client adds ip/registry/source and derives cidrs. */
export type ParsedNetwork = Omit<WhoisRecord, 'ip' | 'registry' | 'source'>;
