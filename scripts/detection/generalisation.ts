// The generalisation protocols of `npm run eval-detection` (docs/detection.md,
// "The three protocols"): leave-one-provider-out on the feeds, and the feed
// set of a time split. Pure: the caller builds an index from the feeds
// returned and asks the detector.
import type { Ip } from '../../src/net/ip.js';
import type { StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';
import { hostsOf, isOwnList, type HeldOutExit, type Split } from './range-calibration.js';

export interface LeftOut {
  readonly provider: string;
  /** every feed but the provider's own lists, and gluetun without its entries */
  readonly feeds: StoredFeed[];
  /** the distinct exits of its own lists (what the index no longer holds) */
  readonly exits: Ip[];
  /** its own lists' ids */
  readonly lists: string[];
}

/** The providers that have an own list, each with its lists' ids. */
export function providersWithLists(stored: readonly StoredFeed[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const feed of stored.filter(isOwnList)) {
    const ids = out.get(feed.provider!) ?? [];
    out.set(feed.provider!, [...ids, feed.feed]);
  }
  return out;
}

/** The feeds without one provider: its own lists and its entries in aggregates. */
export function leaveProviderOut(stored: readonly StoredFeed[], provider: string): LeftOut {
  const lists: string[] = [];
  const byText = new Map<string, Ip>();
  const feeds: StoredFeed[] = [];
  for (const feed of stored) {
    if (isOwnList(feed) && feed.provider === provider) {
      lists.push(feed.feed);
      for (const ip of hostsOf(feed)) byText.set(ip.text, ip);
      continue;
    }
    if (feed.providers === undefined) {
      feeds.push(feed);
      continue;
    }
    const keep = feed.providers.map((p) => p !== provider);
    const prefixes = feed.prefixes.filter((_, i) => keep[i]);
    const providers = feed.providers.filter((_, i) => keep[i]);
    if (prefixes.length > 0) feeds.push({ ...feed, prefixes, providers });
  }
  return { provider, feeds, exits: [...byText.values()], lists };
}

/**
 * The strict time split: the feeds without the provider lists (and other
 * lists) whose copies postdate the split's feed date.
 */
export function feedsAsOf(stored: readonly StoredFeed[], later: readonly string[]): StoredFeed[] {
  const drop = new Set(later);
  return stored.filter((f) => !drop.has(f.feed));
}

/** One split per provider with its own list: the index without it, its exits held out. */
export function leaveOneOutSplits(stored: readonly StoredFeed[]): Split[] {
  return [...providersWithLists(stored).keys()].map((provider) => {
    const left = leaveProviderOut(stored, provider);
    return { feeds: left.feeds, heldOut: left.exits.map((ip) => ({ ip, provider })) };
  });
}

/** The watcher feeds are the older copies of their providers' lists in the fixtures. */
const WATCHER = /watch$/;

/**
 * The time split inside the feeds: each provider with a watcher feed keeps
 * only that copy; its other own lists go, and their exits that no remaining
 * feed holds are held out.
 */
export function watcherTimeSplit(stored: readonly StoredFeed[]): Split {
  const watched = new Set(
    stored.filter((f) => isOwnList(f) && WATCHER.test(f.feed)).map((f) => f.provider!),
  );
  const later = (f: StoredFeed) =>
    isOwnList(f) && watched.has(f.provider!) && !WATCHER.test(f.feed);
  const feeds = stored.filter((f) => !later(f));
  const held = new Set(feeds.flatMap((f) => f.prefixes));
  const heldOut = new Map<string, HeldOutExit>();
  for (const feed of stored.filter(later)) {
    for (const ip of hostsOf(feed)) {
      if (held.has(`${ip.text}/${ip.version === 4 ? 32 : 128}`)) continue;
      heldOut.set(ip.text, { ip, provider: feed.provider! });
    }
  }
  return { feeds, heldOut: [...heldOut.values()] };
}
