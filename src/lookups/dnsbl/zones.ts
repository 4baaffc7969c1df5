// What the service knows about each DNSBL it may query (docs/configuration.md, "Default DNSBL zones"): a
// name people recognise, where to check or request removal, and how much a
// listing there says about abuse (`confidence`, 0–1). The weights are our
// judgement from each list's policy, not numbers the lists publish.

export interface ZoneInfo {
  readonly zone: string;
  readonly name: string;
  /** lookup / removal page, null when unknown */
  readonly url: string | null;
  /** confidence for a listing code whose last octet is not in `weights` */
  readonly weight: number;
  /** confidence per listing code, keyed by the last octet of 127.0.0.x */
  readonly weights?: Readonly<Record<number, number>>;
  /** answers that are messages from the list, not listings, keyed by address */
  readonly errorCodes?: Readonly<Record<string, string>>;
}

/**
 * Weight of a zone this table does not know (set through DNSBL_ZONES): the
 * operator chose it, so a listing there counts toward isListed (LISTED_THRESHOLD).
 */
export const UNKNOWN_ZONE_WEIGHT = 0.5;

const SPAMHAUS_ERRORS = {
  // docs.spamhaus.com "Return codes": these answer the query, they list nothing
  '127.255.255.252': 'Spamhaus says the zone name is mistyped (127.255.255.252)',
  '127.255.255.254':
    'Spamhaus refuses queries through public or open resolvers (127.255.255.254); set DNS_SERVERS to a resolver of your own',
  '127.255.255.255': 'Spamhaus rate limit exceeded (127.255.255.255)',
} as const;

const TABLE: readonly ZoneInfo[] = [
  {
    zone: 'zen.spamhaus.org',
    name: 'Spamhaus ZEN',
    url: 'https://check.spamhaus.org/',
    weight: 0.9, // SBL .2, CSS .3, XBL .4–.7, DROP .9, BCL .30: abuse
    // PBL: addresses that should not send mail directly (policy, not abuse)
    weights: { 10: 0.3, 11: 0.3 },
    errorCodes: SPAMHAUS_ERRORS,
  },
  {
    zone: 'bl.spamcop.net',
    name: 'SpamCop',
    url: 'https://www.spamcop.net/bl.shtml',
    weight: 0.75,
  },
  {
    zone: 'dnsbl.dronebl.org',
    name: 'DroneBL',
    url: 'https://dronebl.org/lookup',
    weight: 0.7,
  },
  {
    zone: 'bl.mailspike.net',
    name: 'Mailspike',
    url: 'https://mailspike.org/',
    weight: 0.6, // .2 zombie, .10 worst reputation
    weights: { 11: 0.4, 12: 0.4 }, // very bad / bad reputation
  },
  { zone: 'psbl.surriel.com', name: 'PSBL', url: 'https://psbl.org/', weight: 0.5 },
  { zone: 'all.s5h.net', name: 's5h.net', url: 'https://s5h.net/rblcheck', weight: 0.4 },
  {
    zone: 'dnsbl-1.uceprotect.net',
    name: 'UCEPROTECT Level 1',
    url: 'https://www.uceprotect.net/en/rblcheck.php',
    weight: 0.4, // aggressive listing policy
  },
  // not in the default list, known so that DNSBL_ZONES may name them
  {
    zone: 'b.barracudacentral.org',
    name: 'Barracuda Reputation Block List',
    url: 'https://www.barracudacentral.org/lookups',
    weight: 0.7, // needs the querying resolver registered first
  },
  { zone: 'bl.blocklist.de', name: 'blocklist.de', url: 'https://www.blocklist.de/', weight: 0.6 },
  {
    zone: 'dnsbl-2.uceprotect.net',
    name: 'UCEPROTECT Level 2',
    url: 'https://www.uceprotect.net/en/rblcheck.php',
    weight: 0.3, // whole allocations: mostly collateral
  },
  {
    zone: 'dnsbl-3.uceprotect.net',
    name: 'UCEPROTECT Level 3',
    url: 'https://www.uceprotect.net/en/rblcheck.php',
    weight: 0.2, // whole ASNs
  },
];

const BY_ZONE = new Map(TABLE.map((info) => [info.zone, info]));

/** The table's entry for `zone` (lower case, no trailing dot), or a default one. */
export function zoneInfo(zone: string): ZoneInfo {
  return BY_ZONE.get(zone) ?? { zone, name: zone, url: null, weight: UNKNOWN_ZONE_WEIGHT };
}

/** Confidence of a listing with code 127.0.0.`lastOctet` on this zone. */
export function codeWeight(info: ZoneInfo, lastOctet: number): number {
  return info.weights?.[lastOctet] ?? info.weight;
}
