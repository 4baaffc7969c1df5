// Choosing the vpn-range rule's two numbers on the feeds alone (docs/detection.md,
// "Choosing the rule's two numbers"): the candidate rules, the held-out splits
// of the providers' own lists, the groups of servers that are not VPN exits,
// and the choice. Pure: scripts/calibrate-vpn-range.ts builds the indexes and
// asks the detector; nothing here reads the evaluation set.
import { parseIp, type Ip } from '../../src/net/ip.js';
import { xorshift32 } from '../xorshift.js';
import { sampleV4 } from './exit-evaluation.js';
import { isDatacenterList, type StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';
import type { VpnRangeRule } from '../../src/lookups/vpn/index/vpn-ranges.js';

/** Exits held out of a provider's own list, with that provider's id. */
export interface HeldOutExit {
  readonly ip: Ip;
  readonly provider: string;
}

export interface Split {
  /** every feed, the own lists without their held-out exits */
  readonly feeds: StoredFeed[];
  readonly heldOut: HeldOutExit[];
}

/** 2–5 exits × widest classed block /24 … /18: the 28 candidates. */
export function candidateRules(): VpnRangeRule[] {
  const out: VpnRangeRule[] = [];
  for (const minExits of [2, 3, 4, 5]) {
    for (let prefix = 24; prefix >= 18; prefix--) {
      out.push({ minExits, maxAddresses: 2 ** (32 - prefix) });
    }
  }
  return out;
}

/** A provider's own list: a VPN feed naming one service for all its entries. */
export function isOwnList(feed: StoredFeed): boolean {
  return feed.kind === 'vpn' && feed.provider !== undefined && feed.providers === undefined;
}

/** A feed's host entries (/32, /128) as addresses: a list's exits. */
export function hostsOf(feed: StoredFeed): Ip[] {
  return feed.prefixes.map(hostOf).filter((ip): ip is Ip => ip !== null);
}

/** A host entry's address (stored prefixes are canonical); null for a wider prefix. */
function hostOf(prefix: string): Ip | null {
  if (!prefix.endsWith('/32') && !prefix.endsWith('/128')) return null;
  return parseIp(prefix.slice(0, prefix.lastIndexOf('/')));
}

/**
 * Holds out `fraction` of each own list's distinct exits (seeded, so a split
 * is reproducible); every other feed stays whole.
 */
export function holdOutSplit(stored: readonly StoredFeed[], fraction: number, seed: number): Split {
  const next = xorshift32(seed);
  const heldOut: HeldOutExit[] = [];
  const feeds = stored.map((feed) => {
    if (!isOwnList(feed)) return feed;
    const held = new Set<string>();
    for (const prefix of feed.prefixes) {
      const ip = hostOf(prefix);
      // a uniform draw per exit: each is held out with the given chance
      if (ip === null || held.has(prefix) || next() / 2 ** 32 >= fraction) continue;
      held.add(prefix);
      heldOut.push({ ip, provider: feed.provider! });
    }
    return { ...feed, prefixes: feed.prefixes.filter((p) => !held.has(p)) };
  });
  return { feeds, heldOut };
}

/**
 * The older-snapshot check on the feeds themselves: the own lists removed
 * (gluetun's older aggregate is the only provider list left), and the own
 * lists' exits that gluetun does not hold, to be caught.
 */
export function olderSnapshot(stored: readonly StoredFeed[]): Split {
  const inAggregate = new Set(
    stored.filter((f) => f.kind === 'vpn' && f.providers !== undefined).flatMap((f) => f.prefixes),
  );
  const heldOut: HeldOutExit[] = [];
  const seen = new Set<string>();
  for (const feed of stored.filter(isOwnList)) {
    for (const ip of hostsOf(feed)) {
      const key = `${ip.text}/${ip.version === 4 ? 32 : 128}`;
      if (inAggregate.has(key) || seen.has(ip.text)) continue;
      seen.add(ip.text);
      heldOut.push({ ip, provider: feed.provider! });
    }
  }
  return { feeds: stored.filter((f) => !isOwnList(f)), heldOut };
}

export interface NegativeGroup {
  readonly name: string;
  readonly addresses: Ip[];
}

/**
 * Servers that are not VPN exits: Tor exit relays, open proxies, random
 * addresses of each cloud's published IPv4 ranges — minus any a provider's
 * list names (a named exit may be a VPN server after all).
 */
export function negativeGroups(stored: readonly StoredFeed[], perCloud = 1000): NegativeGroup[] {
  const named = new Set(
    stored
      .filter((f) => f.kind === 'vpn' && (f.provider !== undefined || f.providers !== undefined))
      .flatMap((f) => hostsOf(f).map((ip) => ip.text)),
  );
  const distinct = (ips: Ip[]): Ip[] => {
    const byText = new Map(ips.filter((ip) => !named.has(ip.text)).map((ip) => [ip.text, ip]));
    return [...byText.values()];
  };
  const of = (kind: StoredFeed['kind']) => stored.filter((f) => f.kind === kind).flatMap(hostsOf);
  const groups: NegativeGroup[] = [
    { name: 'Tor exit relays', addresses: distinct(of('tor')) },
    { name: 'open proxies', addresses: distinct(of('proxy')) },
  ];
  for (const cloud of stored.filter((f) => f.kind === 'hosting' && !isDatacenterList(f.feed))) {
    groups.push({
      name: `cloud ${cloud.feed}`,
      addresses: distinct(sampleV4(cloud.prefixes, perCloud)),
    });
  }
  return groups.filter((g) => g.addresses.length > 0);
}
