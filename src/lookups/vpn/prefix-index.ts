// Prefix membership for every feed at once, compiled into one structure.
// All labels' ranges are cut into elementary intervals (the address line
// split at every range start and end): each interval carries the id of the
// label set that covers it, so a lookup is ONE binary search per family,
// whatever the number of feeds, and returns a precomputed array (no
// allocation). IPv6 boundaries are four uint32 words in one flat
// Uint32Array, compared word by word: no BigInt anywhere.
//
// Built once per reload (detection-index.ts), beside the index in use.
import { lastAtMost } from '../../net/bisect.js';
import type { Ip } from '../../net/ip.js';
import { parseCidr } from '../../net/cidr-match.js';
import { LabelSweep } from './prefix-sweep.js';

/** Room for the label index in a packed IPv4 event key (see v4Events). */
const MAX_LABELS = 1024;

export class PrefixIndex {
  private readonly v4Starts: Uint32Array;
  private readonly v4Sets: Uint32Array;
  /** boundary i is words [4i, 4i+4) */
  private readonly v6Starts: Uint32Array;
  private readonly v6Sets: Uint32Array;
  /** set id → its labels in build order; set 0 is the empty set */
  private readonly sets: readonly (readonly string[])[];
  private readonly runs: Readonly<Record<string, number>>;

  private constructor(parts: {
    v4Starts: Uint32Array;
    v4Sets: Uint32Array;
    v6Starts: Uint32Array;
    v6Sets: Uint32Array;
    sets: readonly (readonly string[])[];
    runs: Record<string, number>;
  }) {
    this.v4Starts = parts.v4Starts;
    this.v4Sets = parts.v4Sets;
    this.v6Starts = parts.v6Starts;
    this.v6Sets = parts.v6Sets;
    this.sets = parts.sets;
    this.runs = parts.runs;
  }

  /**
   * Builds from CIDR texts. An unreadable prefix throws: feeds are validated
   * before they reach here, so one would be a bug, not bad input to skip.
   */
  static build(sets: readonly { label: string; prefixes: readonly string[] }[]): PrefixIndex {
    if (sets.length > MAX_LABELS) throw new Error(`PrefixIndex: more than ${MAX_LABELS} labels`);
    const labels = sets.map((s) => s.label);
    const v4 = new LabelSweep(labels.length);
    const v6 = new LabelSweep(labels.length);
    const v4Keys = new V4Keys(sets.reduce((n, s) => n + 2 * s.prefixes.length, 0));
    const v6Events: V6Event[] = [];
    sets.forEach((set, label) => {
      for (const text of set.prefixes) addPrefix(text, label, v4Keys, v6Events);
    });
    const v4Out = sweepV4(v4Keys.sorted(), v4);
    const v6Out = sweepV6(v6Events, v6);
    // one table of label sets for both families: ids of the IPv6 sweep are shifted
    const v4Sets = v4.setLabels();
    const shift = v4Sets.length - 1;
    const v6Sets = v6.setLabels().slice(1);
    const runs: Record<string, number> = {};
    labels.forEach((label, i) => {
      runs[label] = (runs[label] ?? 0) + v4.runs[i]! + v6.runs[i]!;
    });
    return new PrefixIndex({
      v4Starts: v4Out.starts,
      v4Sets: v4Out.sets,
      v6Starts: v6Out.starts,
      v6Sets: v6Out.sets.map((id) => (id === 0 ? 0 : id + shift)),
      sets: [...v4Sets, ...v6Sets].map((ids) => ids.map((i) => labels[i]!)),
      runs,
    });
  }

  static empty(): PrefixIndex {
    return PrefixIndex.build([]);
  }

  /** The id of the label set holding ip (0: none); stable for this index. */
  setOf(ip: Ip): number {
    if (ip.version === 4) {
      const at = lastAtMost(this.v4Starts, ip.value);
      return at < 0 ? 0 : this.v4Sets[at]!;
    }
    const at = lastV6AtMost(this.v6Starts, ip.groups);
    return at < 0 ? 0 : this.v6Sets[at]!;
  }

  /** Every label set, indexed by setOf's ids (0 is empty). */
  labelSets(): readonly (readonly string[])[] {
    return this.sets;
  }

  /** Labels whose ranges contain ip, in build order (shared array: do not change it). */
  lookup(ip: Ip): readonly string[] {
    return this.sets[this.setOf(ip)]!;
  }

  /** Whether any label's ranges contain ip (the VPN hot path). */
  matchesAny(ip: Ip): boolean {
    return this.setOf(ip) !== 0;
  }

  /** merged range count per label (for readiness reports and metrics) */
  rangeCounts(): Record<string, number> {
    return { ...this.runs };
  }
}

/** The packed IPv4 events, in one preallocated array (no boxed numbers while loading). */
class V4Keys {
  private readonly keys: Float64Array;
  private count = 0;

  constructor(room: number) {
    this.keys = new Float64Array(room);
  }

  push(key: number): void {
    this.keys[this.count++] = key;
  }

  sorted(): Float64Array {
    return this.keys.subarray(0, this.count).sort();
  }
}

interface V6Event {
  readonly words: readonly [number, number, number, number];
  readonly label: number;
  readonly delta: 1 | -1;
}

function addPrefix(text: string, label: number, v4Keys: V4Keys, v6Events: V6Event[]): void {
  const packed = packCanonicalV4(text);
  const cidr = packed < 0 ? parseCidr(text) : null;
  if (packed < 0 && cidr === null) throw new Error(`PrefixIndex: not a CIDR: ${text}`);
  if (packed >= 0 || cidr?.version === 4) {
    const start = packed >= 0 ? Math.floor(packed / 64) : cidr!.network[0]!;
    const length = packed >= 0 ? packed % 64 : cidr!.prefixLength;
    const end = start + 2 ** (32 - length);
    v4Keys.push(v4Event(start, label, 1));
    if (end < 2 ** 32) v4Keys.push(v4Event(end, label, -1));
    return;
  }
  const g = cidr!.network;
  const start = [0, 1, 2, 3].map((k) => g[2 * k]! * 0x10000 + g[2 * k + 1]!) as Words;
  const end = start.map((word, k) => (word | hostMask(cidr!.prefixLength, k)) >>> 0) as Words;
  v6Events.push({ words: start, label, delta: 1 });
  const after = plusOne(end);
  if (after !== null) v6Events.push({ words: after, label, delta: -1 });
}

type Words = [number, number, number, number];

/** The host bits of word k (bits 32k … 32k+31) under a prefix of `length`. */
function hostMask(length: number, k: number): number {
  const bits = Math.min(32, Math.max(0, length - 32 * k));
  return bits === 32 ? 0 : bits === 0 ? 0xffffffff : (2 ** (32 - bits) - 1) >>> 0;
}

function plusOne(words: Words): Words | null {
  const out = [...words] as Words;
  for (let k = 3; k >= 0; k--) {
    if (out[k] !== 0xffffffff) {
      out[k] = out[k]! + 1;
      return out;
    }
    out[k] = 0;
  }
  return null; // the range ends at the last address
}

/** position·2048 + label·2 + (start ? 1 : 0): exact in a double (< 2^43), sorted natively. */
function v4Event(position: number, label: number, delta: 1 | -1): number {
  return position * 2048 + label * 2 + (delta === 1 ? 1 : 0);
}

function sweepV4(
  keys: Float64Array,
  sweep: LabelSweep,
): { starts: Uint32Array; sets: Uint32Array } {
  const starts = new Uint32Array(keys.length);
  const sets = new Uint32Array(keys.length);
  let n = 0;
  let i = 0;
  while (i < keys.length) {
    const position = Math.floor(keys[i]! / 2048);
    for (; i < keys.length && Math.floor(keys[i]! / 2048) === position; i++) {
      const low = keys[i]! % 2048;
      sweep.apply(low >>> 1, (low & 1) === 1 ? 1 : -1);
    }
    const set = sweep.settle();
    // a boundary is kept only where the set changes (adjacent equal intervals merge)
    if (n === 0 ? set !== 0 : sets[n - 1] !== set) {
      starts[n] = position;
      sets[n++] = set;
    }
  }
  return { starts: starts.slice(0, n), sets: sets.slice(0, n) };
}

function compareWords(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < 4; k++) if (a[k] !== b[k]) return a[k]! < b[k]! ? -1 : 1;
  return 0;
}

function sweepV6(events: V6Event[], sweep: LabelSweep): { starts: Uint32Array; sets: Uint32Array } {
  events.sort((a, b) => compareWords(a.words, b.words));
  const starts: number[] = [];
  const sets: number[] = [];
  let i = 0;
  while (i < events.length) {
    const words = events[i]!.words;
    for (; i < events.length && compareWords(events[i]!.words, words) === 0; i++) {
      sweep.apply(events[i]!.label, events[i]!.delta);
    }
    const set = sweep.settle();
    if (changes(sets, set)) {
      starts.push(...words);
      sets.push(set);
    }
  }
  return { starts: Uint32Array.from(starts), sets: Uint32Array.from(sets) };
}

/** A boundary is kept only where the set changes (adjacent equal intervals merge). */
function changes(sets: readonly number[], set: number): boolean {
  return sets.length === 0 ? set !== 0 : sets[sets.length - 1] !== set;
}

/** Index of the last boundary ≤ the address, or -1; groups are the 8 × 16-bit IPv6 groups. */
function lastV6AtMost(starts: Uint32Array, groups: readonly number[]): number {
  const w0 = groups[0]! * 0x10000 + groups[1]!;
  const w1 = groups[2]! * 0x10000 + groups[3]!;
  const w2 = groups[4]! * 0x10000 + groups[5]!;
  const w3 = groups[6]! * 0x10000 + groups[7]!;
  let lo = 0;
  let hi = starts.length / 4 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = mid * 4;
    const a = starts[at]!;
    let le: boolean;
    if (a !== w0) le = a < w0;
    else if (starts[at + 1] !== w1) le = starts[at + 1]! < w1;
    else if (starts[at + 2] !== w2) le = starts[at + 2]! < w2;
    else le = starts[at + 3]! <= w3;
    if (le) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * A canonical "a.b.c.d/n" (what parseCidr writes: decimal octets without
 * leading zeros, host bits clear) packed as start·64 + n, or -1 for any other
 * text. A character loop: stored feeds hold tens of thousands of prefixes, and
 * this runs for each on every load without allocating anything.
 */
export function packCanonicalV4(text: string): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return -1; // a leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return -1;
    } else if ((c === 46 && dots < 3) || (c === 47 && dots === 3)) {
      if (digits === 0) return -1;
      value = value * 256 + octet;
      octet = digits = 0;
      if (c === 47) break;
      dots++;
    } else {
      return -1;
    }
  }
  const length = Number(text.slice(i + 1));
  const lengthText = text.length - i - 1;
  if (i === text.length || lengthText < 1 || lengthText > 2 || !Number.isInteger(length)) return -1;
  if (length > 32 || (lengthText === 2 && text.charCodeAt(i + 1) === 48)) return -1;
  if (value % 2 ** (32 - length) !== 0) return -1;
  return value * 64 + length;
}
