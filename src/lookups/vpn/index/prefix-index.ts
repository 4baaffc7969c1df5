// Prefix membership for every feed at once, compiled into one structure.
// All labels' ranges are cut into elementary intervals (the address line
// split at every range start and end): each interval carries the id of the
// label set that covers it, so a lookup is ONE binary search per family,
// whatever the number of feeds, and returns a precomputed array (no
// allocation). IPv6 boundaries are four uint32 words in one flat
// Uint32Array, compared word by word: no BigInt anywhere.
//
// Built once per reload (detection-index.ts), beside the index in use.
import { lastAtMost } from '../../../net/bisect.js';
import type { Ip } from '../../../net/ip.js';
import { addPrefix, sweepV4, sweepV6, V4Keys, type V6Event } from './prefix-events.js';
import { LabelSweep } from './prefix-sweep.js';

/** Room for the label index in a packed IPv4 event key (see v4Events). */
const MAX_LABELS = 1024;

/** A built index's arrays and sets, as a compiled detection file keeps them. */
export interface PrefixIndexParts {
  readonly v4Starts: Uint32Array;
  readonly v4Sets: Uint32Array;
  readonly v6Starts: Uint32Array;
  readonly v6Sets: Uint32Array;
  readonly sets: readonly (readonly string[])[];
  readonly runs: Readonly<Record<string, number>>;
}

export class PrefixIndex {
  private readonly v4Starts: Uint32Array;
  private readonly v4Sets: Uint32Array;
  /** boundary i is words [4i, 4i+4) */
  private readonly v6Starts: Uint32Array;
  private readonly v6Sets: Uint32Array;
  /** set id → its labels in build order; set 0 is the empty set */
  private readonly sets: readonly (readonly string[])[];
  private readonly runs: Readonly<Record<string, number>>;

  private constructor(parts: PrefixIndexParts) {
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

  /** The index toParts described. */
  static fromParts(parts: PrefixIndexParts): PrefixIndex {
    return new PrefixIndex(parts);
  }

  toParts(): PrefixIndexParts {
    const { v4Starts, v4Sets, v6Starts, v6Sets, sets, runs } = this;
    return { v4Starts, v4Sets, v6Starts, v6Sets, sets, runs };
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

  /**
   * Where the label set changes: each family's interval starts (IPv6 as four
   * words each), ascending. For exports that must cut the address space where
   * an answer can change (src/export/).
   */
  boundaries(): { v4: Uint32Array; v6: Uint32Array } {
    return { v4: this.v4Starts, v6: this.v6Starts };
  }

  /** merged range count per label (for readiness reports and metrics) */
  rangeCounts(): Record<string, number> {
    return { ...this.runs };
  }
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
