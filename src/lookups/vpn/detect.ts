// The VPN / proxy / hosting / mobile verdict for one address. Pure: the ASN
// comes from the caller's ASN lookup, the lists from a DetectionIndex.
//
// Rule order (every rule that applies adds its flags and a reason; confidence
// is that of the strongest rule that fired):
//   1. special-purpose address (RFC 6890 registries) → nothing, low,
//      reason "special-purpose-address": private space says nothing about VPNs
//   2. published lists:
//        tor feed     → isTor, isProxy        "tor-exit" (high)
//        VPN provider's server list → isVpn, provider  "vpn-provider:<id>" (high)
//        range expanded from exits → isVpn, provider "vpn-range:<id>", or
//                     "vpn-range:shared" (several providers' exits: no provider) (medium)
//        VPN-dense hosting block → isVpn, isHosting, no provider  "vpn-dense:<asn>" (low)
//        other vpn feed → isVpn               "vpn-list:<feed>" (high)
//        open-proxy list → isProxy            "proxy-list:<feed>" (medium: open
//                     proxies are short-lived and often dynamic addresses;
//                     an entry older than the list's maximum age never gets here)
//        datacenter list → isHosting          "datacenter-list:<feed>" (medium:
//                     those lists are built from ASNs, not from the operators)
//        cloud feed   → isHosting             "<provider>-published-range" (high)
//        relay egress → isRelay, provider = the relay's operator when no VPN
//                     list names one        "relay:<feed>" (high: the operator's
//                     own list; a relay is not a VPN, isVpn stays as the rest says)
//   3. curated ASN class (medium), from resources/asn-classes.csv:
//        hosting → isHosting                  "asn:<n> hosting"
//        vpn     → isVpn, isHosting           "asn:<n> vpn" (VPN egress is datacenter space)
//        mobile  → isMobile                   "asn:<n> mobile"
//        isp     → nothing, and it stops rule 4: "asn:<n> isp" (a mixed
//                  incumbent must not be reclassified by its name)
//   4. organisation-name rules (low), only for an ASN with no class:
//        "org-name:<class>" with the flags of that class as in rule 3
//   5. nothing fired → all false, confidence low, no reasons.
// Tor exits count as proxies: traffic leaves through a relay run by someone else.
import type { Ip } from '../../net/ip.js';
import { isBogon } from '../geoip/bogons.js';
import type { AsnClass, AsnClassTable } from './asn-classes.js';
import { isDatacenterList, type FeedKind } from './feeds/feed-types.js';
import { classifyOrgName } from './org-rules.js';
import { providerName } from './providers.js';
import { relayOperator } from '../geofeed/geofeed-feeds.js';

export type Confidence = 'high' | 'medium' | 'low';

export interface VpnDetection {
  ip: string;
  isVpn: boolean;
  isProxy: boolean;
  isHosting: boolean;
  isMobile: boolean;
  isTor: boolean;
  /** inside a privacy relay's published egress ranges (iCloud Private Relay, Cloudflare WARP) */
  isRelay: boolean;
  /** the VPN service's name ("Mullvad") when a list names it, else null */
  provider: string | null;
  confidence: Confidence;
  asn: string | null;
  org: string | null;
  reasons: string[];
}

export interface AsnHint {
  readonly asn: number;
  readonly org: string | null;
}

export interface FeedHit {
  readonly feed: string;
  readonly kind: FeedKind;
  /** the VPN service the list names for this address (a providers.ts id), else null */
  readonly provider: string | null;
  /**
   * For a VPN hit naming a provider: its own list, an aggregate naming many
   * (gluetun), or a range expanded from its exits (vpn-ranges.ts); for a
   * VPN-dense hosting block (vpn-dense.ts, no provider): dense
   */
  readonly source: 'own' | 'aggregate' | 'range' | 'dense';
  /** a dense block's AS (its reason says which network) */
  readonly asn?: number;
  /**
   * For a range: its network is verifiably the provider's own (its ASN-table
   * organisation is the provider), so the range may name it. A range in
   * anyone else's network names nobody (docs/detection.md).
   */
  readonly ownNetwork?: boolean;
}

/** The feeds holding an address, and the service they name (nameProvider of the hits). */
export interface FeedMatch {
  readonly hits: readonly FeedHit[];
  readonly provider: string | null;
}

/**
 * What the feeds say of a whole AS, built with the index: the ASN lists
 * (`asn-list:<feed>`, hosting only) and the learned VPN networks
 * (`vpn-asn:<n>`, isVpn; the provider when the AS is its own).
 */
export interface AsnEvidence {
  readonly isVpn: boolean;
  readonly reasons: readonly string[];
  /** display name, only for an AS verifiably the provider's own network */
  readonly provider: string | null;
}

/** What detect() needs: feed membership and the ASN classes, taken as one snapshot. */
export interface DetectionIndex {
  /** one search; the answer is built with the index (a lookup allocates nothing) */
  matchFeeds(ip: Ip): FeedMatch;
  readonly asnClasses: AsnClassTable;
  /** per AS, what the ASN lists and the learned VPN networks say (none: nothing) */
  readonly asnEvidence?: ReadonlyMap<number, AsnEvidence>;
}

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

/** "cloudflare-v4" and "cloudflare-v6" are one provider in a reason string. */
function provider(feed: string): string {
  return feed.replace(/-v[46]$/, '');
}

/**
 * The flags of one address. `asnOf` is asked only for addresses that can have
 * an AS (not special-purpose ones), so callers need not check bogons first.
 */
export function detect(
  ip: Ip,
  asnOf: (ip: Ip) => AsnHint | null,
  index: DetectionIndex,
  /** the feeds holding ip, when the caller has them already (index.matchFeeds(ip) otherwise) */
  feedMatch?: FeedMatch,
): VpnDetection {
  const special = isBogon(ip);
  const asn = special ? null : asnOf(ip);
  const out: VpnDetection = {
    ip: ip.text,
    isVpn: false,
    isProxy: false,
    isHosting: false,
    isMobile: false,
    isTor: false,
    isRelay: false,
    provider: null,
    confidence: 'low',
    asn: asn === null ? null : `AS${asn.asn}`,
    org: asn?.org ?? null,
    reasons: [],
  };
  const reason = (text: string, level: Confidence): void => {
    if (!out.reasons.includes(text)) out.reasons.push(text);
    if (RANK[level] > RANK[out.confidence]) out.confidence = level;
  };
  if (special) {
    out.reasons.push('special-purpose-address');
    return out;
  }
  const match = feedMatch ?? index.matchFeeds(ip);
  let relay: string | null = null;
  for (const hit of match.hits) {
    applyHit(hit, reason, out);
    if (hit.kind === 'relay') relay ??= relayOperator(hit.feed);
  }
  // a VPN list naming its service wins over the relay's operator
  out.provider = match.provider ?? relay;
  if (asn === null) return out;
  const entry = index.asnClasses.get(asn.asn);
  const evidence = index.asnEvidence?.get(asn.asn);
  if (entry !== undefined) {
    applyClass(out, entry.class);
    reason(`asn:${asn.asn} ${entry.class}`, entry.class === 'isp' ? 'low' : 'medium');
    // an access network is never flagged by what lists say of its AS
    if (evidence !== undefined && entry.class !== 'isp' && entry.class !== 'mobile') {
      applyEvidence(out, evidence, match, reason);
    }
    return out;
  }
  const byName = classifyOrgName(asn.org);
  if (byName !== null) {
    applyClass(out, byName.class);
    reason(`org-name:${byName.class}`, 'low');
  }
  if (evidence !== undefined && byName?.class !== 'mobile') {
    applyEvidence(out, evidence, match, reason);
  }
  return out;
}

function applyEvidence(
  out: VpnDetection,
  evidence: AsnEvidence,
  match: FeedMatch,
  reason: Reason,
): void {
  out.isHosting = true;
  if (evidence.isVpn) out.isVpn = true;
  for (const text of evidence.reasons) reason(text, 'medium');
  // the own network names its provider unless a list already spoke (or two disagreed)
  if (evidence.provider !== null && out.provider === null && !namedByList(match)) {
    out.provider = evidence.provider;
  }
}

function namedByList(match: FeedMatch): boolean {
  for (const hit of match.hits) {
    if (hit.kind === 'vpn' && hit.source !== 'range' && hit.provider !== null) return true;
  }
  return false;
}

const SOURCES = ['own', 'aggregate', 'range'] as const;

type Reason = (text: string, level: Confidence) => void;

function applyHit(hit: FeedHit, reason: Reason, out: VpnDetection): void {
  if (hit.kind === 'tor') {
    out.isTor = out.isProxy = true;
    reason('tor-exit', 'high');
  } else if (hit.kind === 'vpn') {
    out.isVpn = true;
    const id = hit.provider;
    if (hit.source === 'dense') {
      out.isHosting = true;
      reason(`vpn-dense:${hit.asn ?? 'unknown'}`, 'low');
    } else if (hit.source === 'range') reason(`vpn-range:${id ?? 'shared'}`, 'medium');
    else if (id === null) reason(`vpn-list:${hit.feed}`, 'high');
    else reason(`vpn-provider:${id}`, 'high');
  } else if (hit.kind === 'relay') {
    out.isRelay = true;
    reason(`relay:${hit.feed}`, 'high');
  } else if (hit.kind === 'geofeed') {
    // a network's geofeed says where, not what: no flag
  } else if (hit.kind === 'proxy') {
    out.isProxy = true;
    reason(`proxy-list:${hit.feed}`, 'medium');
  } else if (isDatacenterList(hit.feed)) {
    out.isHosting = true;
    reason(`datacenter-list:${provider(hit.feed)}`, 'medium');
  } else {
    out.isHosting = true;
    reason(`${provider(hit.feed)}-published-range`, 'high');
  }
}

/**
 * The service named when the lists agree: the providers' own lists first; an
 * aggregate (gluetun, older) only when no own list holds the address, an
 * expanded range only when no list does. Two services claiming one address
 * at the same level (a shared host that changed hands) → null. Asked once
 * per label set when the index is built, not per lookup.
 */
export function nameProvider(hits: readonly FeedHit[]): string | null {
  for (const source of SOURCES) {
    let found: string | null = null;
    for (const hit of hits) {
      if (hit.kind !== 'vpn' || hit.source !== source) continue;
      const id = hit.provider;
      // a range names its provider only in that provider's own network
      if (id === null || (source === 'range' && hit.ownNetwork !== true)) continue;
      if (found !== null && found !== id) return null;
      found = id;
    }
    if (found !== null) return providerName(found);
  }
  return null;
}

function applyClass(out: VpnDetection, cls: AsnClass): void {
  if (cls === 'hosting') out.isHosting = true;
  if (cls === 'vpn') out.isVpn = out.isHosting = true;
  if (cls === 'mobile') out.isMobile = true;
}
