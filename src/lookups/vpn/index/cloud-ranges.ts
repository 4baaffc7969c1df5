// The IPv4 ranges the clouds publish as their own (AWS, GCP, Azure, Oracle,
// Cloudflare, DigitalOcean, Linode, Vultr feeds; not the datacenter lists):
// a general-purpose cloud sells to everyone, so VPN tenants in it say nothing
// of its other addresses. The learned VPN rules keep out of them.
import { isDatacenterList, type StoredFeed } from '../feeds/feed-types.js';
import { packCanonicalV4 } from './prefix-events.js';

/** The IPv4 ranges the clouds publish as their own, as sorted [start, end] pairs. */
export function cloudRangesV4(stored: readonly StoredFeed[]): [number, number][] {
  const out: [number, number][] = [];
  for (const feed of stored) {
    if (feed.kind !== 'hosting' || isDatacenterList(feed.feed)) continue;
    for (const prefix of feed.prefixes) {
      const packed = packCanonicalV4(prefix);
      if (packed < 0) continue;
      const length = packed % 64;
      const start = (packed - length) / 64;
      out.push([start, start + 2 ** (32 - length) - 1]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** Whether [start, end] meets any of the sorted ranges (their ends need not be sorted). */
export function overlapsAny(
  ranges: readonly [number, number][],
  start: number,
  end: number,
): boolean {
  // the last range starting at or before `end`; nested and overlapping prefixes
  // are few, so walking back while a range could still reach `start` is short
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ranges[mid]![0] <= end) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0; i--) {
    const [s, e] = ranges[i]!;
    if (e >= start) return true;
    // a /8 is the widest published range: nothing starting earlier can reach `start`
    if (s < start - 2 ** 24) return false;
  }
  return false;
}
