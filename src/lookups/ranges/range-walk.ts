// One family's address space walked in order over the lanes of the sources
// that can change an answer (./lanes.ts): between two neighbouring
// boundaries of all lanes every source holds one value, so the whole
// interval answers as its first address does. The intervals that match are
// joined with their matching neighbours and handed on as ranges; nothing is
// collected (a list of a million blocks is written as it is found).
// Positions live in Uint32Arrays, never in plain fields or arguments: an
// address of 2^31 or more in a field is a number V8 boxes on every store,
// and boxing 8 million of them was a third of a list's time in garbage.
import type { Words } from '../../net/cidr-cover.js';
import { TableLaneV4, TableLaneV6, type Lane } from './lanes.js';

/** Whether the interval starting at `at` (four words) matches; the lanes hold its values. */
export type IntervalTest = (at: Words) => boolean;

/** Where the walk's ranges go: IPv4 as numbers, IPv6 as words (valid during the call only). */
export interface RangeSink {
  v4(start: number, end: number): void;
  v6(start: Words, end: Words): void;
}

/** a < b, four words each */
function less(a: Words, b: Words): boolean {
  return (
    a[0]! < b[0]! ||
    (a[0] === b[0] &&
      (a[1]! < b[1]! || (a[1] === b[1] && (a[2]! < b[2]! || (a[2] === b[2] && a[3]! < b[3]!)))))
  );
}

function same(a: Words, b: Words): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

export class FamilyWalk {
  /** the interval's start */
  private readonly at = new Uint32Array(4);
  private open = false;
  private readonly runStart = new Uint32Array(4);
  private readonly runEnd = new Uint32Array(4);
  private finished = false;
  /** elementary intervals walked */
  intervals = 0;

  /** the lane with the most boundaries (a compiled table), and the others */
  private readonly main: Lane;
  private readonly others: Lane[];
  /** the others' least next boundary, when any is left (limited) */
  private readonly limit = new Uint32Array(4);
  private limited = false;
  /** an other lane moved: its least next boundary is found again */
  private stale = true;

  /** `lanes[0]` is the main lane: the one with the most boundaries */
  constructor(
    private readonly version: 4 | 6,
    lanes: readonly Lane[],
    private readonly test: IntervalTest,
    private readonly sink: RangeSink,
  ) {
    this.main = lanes[0]!;
    this.others = lanes.slice(1);
  }

  get done(): boolean {
    return this.finished;
  }

  /** Walks up to `budget` intervals; true once the family's space is walked. */
  step(budget: number): boolean {
    const main = this.main;
    for (let n = 0; n < budget && !this.finished; n++) {
      if (this.stale) this.findLimit();
      if (!main.done && (main instanceof TableLaneV4 || main instanceof TableLaneV6)) {
        const walked =
          main instanceof TableLaneV4 ? this.runV4(main, budget - n) : this.runV6(main, budget - n);
        if (walked > 0) {
          n += walked - 1;
          continue;
        }
      }
      // most intervals end where the largest table's next range starts, before
      // any other lane's boundary: that lane alone is read and moved
      if (!main.done && (!this.limited || less(main.next, this.limit))) {
        this.close(main.next);
        main.advance();
        continue;
      }
      // else the others' boundary comes first (or with the main lane's)
      if (!this.limited) {
        this.finish();
        break;
      }
      const limit = this.limit;
      this.close(limit);
      if (!main.done && same(main.next, limit)) main.advance();
      for (const l of this.others) if (!l.done && same(l.next, limit)) l.advance();
      this.stale = true;
    }
    return this.finished;
  }

  /**
   * The IPv4 table's ranges that end before the others' next boundary, read
   * from its arrays in one loop (most of the walk); how many were walked.
   */
  private runV4(main: TableLaneV4, budget: number): number {
    const { keys, values } = main;
    const last = keys.length - 1;
    const limit = this.limited ? this.limit[3]! : 2 ** 32;
    const next = main.next;
    let at = main.at;
    let walked = 0;
    while (walked < budget && at < last) {
      const key = keys[at + 1]!;
      if (key >= limit) break;
      next[3] = key;
      this.close(next);
      main.value = values[++at]!;
      walked++;
    }
    main.at = at;
    main.peek();
    return walked;
  }

  /** As runV4, for the IPv6 table (its split blocks and aliases are the lane's to read). */
  private runV6(main: TableLaneV6, budget: number): number {
    const limited = this.limited;
    const limit = this.limit;
    let walked = 0;
    while (walked < budget && !main.done) {
      if (limited && !less(main.next, limit)) break;
      this.close(main.next);
      main.advance();
      walked++;
    }
    return walked;
  }

  /** The least next boundary of the lanes but the main one (limited: there is one). */
  private findLimit(): void {
    this.stale = false;
    this.limited = false;
    for (const l of this.others) {
      if (l.done) continue;
      if (!this.limited || less(l.next, this.limit)) {
        this.limited = true;
        this.limit.set(l.next);
      }
    }
  }

  /**
   * The interval starting at the position ends before `next` (the next
   * boundary; after the last one, finish() closes the space): its test opens
   * or closes a run, and the position moves there.
   */
  private close(next: Words): void {
    this.intervals++;
    const at = this.at;
    const match = this.test(at);
    if (match && !this.open) {
      this.open = true;
      this.runStart.set(at);
    } else if (!match && this.open) {
      this.open = false;
      this.emitUntil(at);
    }
    at.set(next);
  }

  /** The last interval runs to the end of the space. */
  private finish(): void {
    const match = this.test(this.at);
    if (match && !this.open) {
      this.open = true;
      this.runStart.set(this.at);
    } else if (!match && this.open) {
      this.open = false;
      this.emitUntil(this.at);
    }
    this.intervals++;
    if (this.open) this.emitLast();
    this.finished = true;
  }

  /** The open run ends just before `at`. */
  private emitUntil(at: Words): void {
    if (this.version === 4) {
      this.sink.v4(this.runStart[3]!, at[3]! - 1);
      return;
    }
    const end = this.runEnd;
    end.set(at);
    // end - 1 (at > runStart ≥ 0: no wrap)
    for (let i = 3; i >= 0; i--) {
      if (end[i] !== 0) {
        end[i]! -= 1;
        break;
      }
      end[i] = 0xffffffff;
    }
    this.sink.v6(this.runStart, end);
  }

  private emitLast(): void {
    if (this.version === 4) {
      this.sink.v4(this.runStart[3]!, 0xffffffff);
      return;
    }
    this.runEnd.fill(0xffffffff);
    this.sink.v6(this.runStart, this.runEnd);
  }
}
