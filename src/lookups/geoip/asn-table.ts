// The embedded ASN data as sorted, non-overlapping ranges in typed arrays,
// searched by bisection. Parsing the 36 MB CSV takes ~0.6 s, so the table is
// also serialised to one binary file (built by `npm install` through
// scripts/prepare-data.ts) that loads in milliseconds: typed-array views over
// one buffer, organisation names de-duplicated into one JSON list.
import { lastAtMost } from '../../net/bisect.js';
import type { Ip } from '../../net/ip.js';
import type { AsnRange } from './asn-csv.js';

export interface AsnInfo {
  asn: number;
  /** the organisation holding the AS (or, from a MaxMind ISP database, the network's organisation) */
  org: string | null;
  /** only known from a MaxMind ISP database; otherwise null and the record reports org */
  isp: string | null;
}

export interface AsnSource {
  lookup(ip: Ip): AsnInfo | null;
}

const MAGIC = 'IPINTEL-ASN-1\n';

/** An IPv6 address as four 32-bit words, so it can be compared without BigInt. */
function ipv6Words(groups: readonly number[], out: Uint32Array, at: number): void {
  for (let w = 0; w < 4; w++) {
    out[at + w] = (((groups[2 * w] ?? 0) << 16) | (groups[2 * w + 1] ?? 0)) >>> 0;
  }
}

function compareWords(a: Uint32Array, ai: number, b: Uint32Array, bi: number): number {
  for (let w = 0; w < 4; w++) {
    const x = a[ai + w] ?? 0;
    const y = b[bi + w] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** a - 1 for a 128-bit (or, in word 0, 32-bit) value held in four words */
function decrementWords(a: Uint32Array): Uint32Array {
  const out = Uint32Array.from(a);
  for (let w = 3; w >= 0; w--) {
    const word = out[w] ?? 0;
    out[w] = (word - 1) >>> 0;
    if (word !== 0) break;
  }
  return out;
}

/** a + 1, as decrementWords */
function incrementWords(a: Uint32Array): Uint32Array {
  const out = Uint32Array.from(a);
  for (let w = 3; w >= 0; w--) {
    const word = out[w] ?? 0;
    out[w] = (word + 1) >>> 0;
    if (word !== 0xffffffff) break;
  }
  return out;
}

interface KeyedRange {
  row: AsnRange;
  start: Uint32Array;
  end: Uint32Array;
}

/**
 * Bisection needs disjoint ranges. The data has the odd overlap (two DoD ASNs
 * in 214/8): the more specific, later-starting range wins over its span, and
 * an enclosing range resumes after a range nested inside it.
 */
function disjoint(ranges: KeyedRange[]): KeyedRange[] {
  const byStart = (a: KeyedRange, b: KeyedRange) => compareWords(a.start, 0, b.start, 0);
  let list = [...ranges].sort(byStart);
  for (let round = 0; round < 64; round++) {
    const resumed: KeyedRange[] = [];
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1];
      const cur = list[i];
      if (!prev || !cur || compareWords(cur.start, 0, prev.end, 0) > 0) continue;
      if (compareWords(cur.end, 0, prev.end, 0) < 0) {
        resumed.push({ row: prev.row, start: incrementWords(cur.end), end: prev.end });
      }
      prev.end = decrementWords(cur.start);
    }
    list = list.filter((r) => compareWords(r.start, 0, r.end, 0) <= 0);
    if (resumed.length === 0) return list;
    list = [...list, ...resumed].sort(byStart);
  }
  return list;
}

interface Family {
  /** IPv4: 1 word per address; IPv6: 4 */
  starts: Uint32Array;
  ends: Uint32Array;
  asns: Uint32Array;
  orgIds: Int32Array;
}

export class AsnTable implements AsnSource {
  private readonly query = new Uint32Array(4);

  constructor(
    private readonly v4: Family,
    private readonly v6: Family,
    private readonly orgs: readonly string[],
  ) {}

  get size(): number {
    return this.v4.asns.length + this.v6.asns.length;
  }

  lookup(ip: Ip): AsnInfo | null {
    const index = ip.version === 4 ? this.findV4(ip.value) : this.findV6(ip.groups);
    if (index === -1) return null;
    const family = ip.version === 4 ? this.v4 : this.v6;
    const orgId = family.orgIds[index] ?? -1;
    return {
      asn: family.asns[index] ?? 0,
      org: orgId === -1 ? null : (this.orgs[orgId] ?? null),
      isp: null,
    };
  }

  private findV4(value: number): number {
    const found = lastAtMost(this.v4.starts, value);
    return found !== -1 && value <= (this.v4.ends[found] ?? 0) ? found : -1;
  }

  private findV6(groups: readonly number[]): number {
    const { starts, ends } = this.v6;
    const q = this.query;
    ipv6Words(groups, q, 0);
    let lo = 0;
    let hi = this.v6.asns.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareWords(starts, mid * 4, q, 0) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found !== -1 && compareWords(q, 0, ends, found * 4) <= 0 ? found : -1;
  }

  /** Builds a table from parsed CSV rows (any order; later duplicates of a start win nothing). */
  static fromRanges(rows: readonly AsnRange[]): AsnTable {
    const orgIndex = new Map<string, number>();
    const orgs: string[] = [];
    const orgId = (org: string | null): number => {
      if (org === null) return -1;
      let id = orgIndex.get(org);
      if (id === undefined) {
        id = orgs.length;
        orgs.push(org);
        orgIndex.set(org, id);
      }
      return id;
    };
    const build = (version: 4 | 6): Family => {
      const words = version === 4 ? 1 : 4;
      const mine = rows.filter((r) => r.start.version === version);
      const key = (ip: Ip): Uint32Array => {
        const out = new Uint32Array(4);
        if (ip.version === 4)
          out[3] = ip.value; // as the IPv4-compatible ::a.b.c.d
        else ipv6Words(ip.groups, out, 0);
        return out;
      };
      const keyed = mine.map((r) => ({ row: r, start: key(r.start), end: key(r.end) }));
      const disjointRanges = disjoint(keyed);
      const family: Family = {
        starts: new Uint32Array(disjointRanges.length * words),
        ends: new Uint32Array(disjointRanges.length * words),
        asns: new Uint32Array(disjointRanges.length),
        orgIds: new Int32Array(disjointRanges.length),
      };
      disjointRanges.forEach((k, i) => {
        family.starts.set(k.start.subarray(4 - words), i * words);
        family.ends.set(k.end.subarray(4 - words), i * words);
        family.asns[i] = k.row.asn;
        family.orgIds[i] = orgId(k.row.org);
      });
      return family;
    };
    return new AsnTable(build(4), build(6), orgs);
  }

  /** Layout: magic, uint32 header length, JSON header, zero padding to 4, then the arrays. */
  serialize(stamp: string): Buffer {
    const arrays = [this.v4, this.v6].flatMap((f) => [f.starts, f.ends, f.asns, f.orgIds]);
    const header = JSON.stringify({
      stamp,
      v4: this.v4.asns.length,
      v6: this.v6.asns.length,
      orgs: this.orgs,
    });
    const head = Buffer.from(MAGIC + '0000' + header);
    head.writeUInt32LE(Buffer.byteLength(header), MAGIC.length);
    const padding = Buffer.alloc((4 - (head.length % 4)) % 4);
    const body = arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
    return Buffer.concat([head, padding, ...body]);
  }

  /** Returns null when the buffer is not a table of this format or its stamp differs. */
  static deserialize(buffer: Buffer, expectedStamp: string): AsnTable | null {
    if (buffer.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    const headerLength = buffer.readUInt32LE(MAGIC.length);
    const headerStart = MAGIC.length + 4;
    const header = JSON.parse(buffer.toString('utf8', headerStart, headerStart + headerLength)) as {
      stamp: string;
      v4: number;
      v6: number;
      orgs: string[];
    };
    if (header.stamp !== expectedStamp) return null;
    // copy into an aligned buffer so typed-array views are legal whatever the file offset
    let offset = headerStart + headerLength;
    offset += (4 - (offset % 4)) % 4;
    const aligned = new Uint8Array(buffer.length - offset);
    aligned.set(buffer.subarray(offset));
    const words = (header.v4 * 2 + header.v4 * 2 + header.v6 * 8 + header.v6 * 2) * 4;
    if (aligned.length !== words) return null;
    let at = 0;
    const take = <T>(make: (b: ArrayBuffer, o: number, n: number) => T, n: number): T => {
      const view = make(aligned.buffer, at, n);
      at += n * 4;
      return view;
    };
    const u32 = (b: ArrayBuffer, o: number, n: number) => new Uint32Array(b, o, n);
    const i32 = (b: ArrayBuffer, o: number, n: number) => new Int32Array(b, o, n);
    const family = (count: number, words: number): Family => ({
      starts: take(u32, count * words),
      ends: take(u32, count * words),
      asns: take(u32, count),
      orgIds: take(i32, count),
    });
    const v4 = family(header.v4, 1);
    const v6 = family(header.v6, 4);
    if (at !== aligned.length) return null;
    return new AsnTable(v4, v6, header.orgs);
  }
}
