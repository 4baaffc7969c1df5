// How much address space each geofeed covers: IPv4 addresses, and IPv6 /64s
// and /48s touched (a prefix longer than /64 counts its /64 once). Overlaps
// within a feed count once; `all` is the union of every feed. A report for
// BENCHMARKS.md (`npm run geofeed-coverage`), not on the request path.
import { parseCidr } from '../../src/net/cidr-match.js';
import type { StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';

export interface Coverage {
  readonly feed: string;
  readonly kind: string;
  readonly prefixes: number;
  readonly ipv4Addresses: number;
  readonly ipv6Slash64s: bigint;
  readonly ipv6Slash48s: bigint;
}

type Span = [bigint, bigint];

/** The number of units of 2^shift addresses that the spans touch, each once. */
function units(spans: readonly Span[], shift: bigint): bigint {
  const scaled = spans
    .map(([a, b]): Span => [a >> shift, b >> shift])
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  let total = 0n;
  let open: Span | null = null;
  for (const [a, b] of scaled) {
    if (open !== null && a <= open[1] + 1n) {
      if (b > open[1]) open[1] = b;
      continue;
    }
    if (open !== null) total += open[1] - open[0] + 1n;
    open = [a, b];
  }
  if (open !== null) total += open[1] - open[0] + 1n;
  return total;
}

function spansOf(prefixes: readonly string[]): { v4: Span[]; v6: Span[] } {
  const v4: Span[] = [];
  const v6: Span[] = [];
  for (const text of prefixes) {
    const cidr = parseCidr(text);
    if (cidr === null) continue;
    if (cidr.version === 4) {
      const start = BigInt(cidr.network[0]!);
      v4.push([start, start + (1n << BigInt(32 - cidr.prefixLength)) - 1n]);
    } else {
      let start = 0n;
      for (const group of cidr.network) start = (start << 16n) | BigInt(group);
      v6.push([start, start + (1n << BigInt(128 - cidr.prefixLength)) - 1n]);
    }
  }
  return { v4, v6 };
}

function coverageOf(feed: string, kind: string, prefixes: readonly string[]): Coverage {
  const { v4, v6 } = spansOf(prefixes);
  return {
    feed,
    kind,
    prefixes: prefixes.length,
    ipv4Addresses: Number(units(v4, 0n)),
    ipv6Slash64s: units(v6, 64n),
    ipv6Slash48s: units(v6, 80n),
  };
}

/** One row per relay or geofeed feed, then `all` (their union). */
export function geofeedCoverage(stored: readonly StoredFeed[]): Coverage[] {
  const feeds = stored.filter((s) => s.kind === 'relay' || s.kind === 'geofeed');
  return [
    ...feeds.map((s) => coverageOf(s.feed, s.kind, s.prefixes)),
    coverageOf(
      'all',
      '',
      feeds.flatMap((s) => s.prefixes),
    ),
  ];
}
