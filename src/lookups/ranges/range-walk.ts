// One family's address space walked in order over the lanes of the sources
// that can change an answer (./lanes.ts): between two neighbouring
// boundaries of all lanes every source holds one value, so the whole
// interval answers as its first address does. The intervals that match are
// joined with their matching neighbours and handed on as ranges; nothing is
// collected (a list of a million blocks is written as it is found).
import type { Words } from '../../net/cidr-cover.js';
import { TableLaneV4, TableLaneV6, type Lane } from './lanes.js';

/** Whether the interval starting at w0–w3 matches; the lanes hold its values. */
export type IntervalTest = (w0: number, w1: number, w2: number, w3: number) => boolean;

/** Where the walk's ranges go: IPv4 as numbers, IPv6 as words (valid during the call only). */
export interface RangeSink {
  v4(start: number, end: number): void;
  v6(start: Words, end: Words): void;
}

export class FamilyWalk {
  /** the interval's start */
  private p0 = 0;
  private p1 = 0;
  private p2 = 0;
  private p3 = 0;
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
  private l0 = 0;
  private l1 = 0;
  private l2 = 0;
  private l3 = 0;
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
      if (
        !main.done &&
        (!this.limited ||
          main.n0 < this.l0 ||
          (main.n0 === this.l0 &&
            (main.n1 < this.l1 ||
              (main.n1 === this.l1 &&
                (main.n2 < this.l2 || (main.n2 === this.l2 && main.n3 < this.l3))))))
      ) {
        this.close(main.n0, main.n1, main.n2, main.n3);
        main.advance();
        continue;
      }
      // else the others' boundary comes first (or with the main lane's)
      if (!this.limited && main.done) {
        this.close(0, 0, 0, 0);
        this.finish();
        break;
      }
      const m0 = this.l0;
      const m1 = this.l1;
      const m2 = this.l2;
      const m3 = this.l3;
      this.close(m0, m1, m2, m3);
      if (!main.done && main.n0 === m0 && main.n1 === m1 && main.n2 === m2 && main.n3 === m3) {
        main.advance();
      }
      for (const l of this.others) {
        if (!l.done && l.n0 === m0 && l.n1 === m1 && l.n2 === m2 && l.n3 === m3) l.advance();
      }
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
    const limit = this.limited ? this.l3 : 2 ** 32;
    let at = main.at;
    let walked = 0;
    while (walked < budget && at < last) {
      const next = keys[at + 1]!;
      if (next >= limit) break;
      this.close(0, 0, 0, next);
      main.value = values[++at]!;
      walked++;
    }
    main.at = at;
    main.peek();
    return walked;
  }

  /** As runV4, for the IPv6 table (its split blocks and aliases are the lane's to read). */
  private runV6(main: TableLaneV6, budget: number): number {
    const { limited, l0, l1, l2, l3 } = this;
    let walked = 0;
    while (walked < budget && !main.done) {
      const { n0, n1, n2, n3 } = main;
      if (
        limited &&
        !(n0 < l0 || (n0 === l0 && (n1 < l1 || (n1 === l1 && (n2 < l2 || (n2 === l2 && n3 < l3))))))
      ) {
        break;
      }
      this.close(n0, n1, n2, n3);
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
      if (
        !this.limited ||
        l.n0 < this.l0 ||
        (l.n0 === this.l0 &&
          (l.n1 < this.l1 ||
            (l.n1 === this.l1 && (l.n2 < this.l2 || (l.n2 === this.l2 && l.n3 < this.l3)))))
      ) {
        this.limited = true;
        this.l0 = l.n0;
        this.l1 = l.n1;
        this.l2 = l.n2;
        this.l3 = l.n3;
      }
    }
  }

  /**
   * The interval starting at the position ends before w0–w3 (the next
   * boundary; after the last one, finish() closes the space): its test
   * opens or closes a run, and the position moves there.
   */
  private close(w0: number, w1: number, w2: number, w3: number): void {
    this.intervals++;
    const match = this.test(this.p0, this.p1, this.p2, this.p3);
    if (match && !this.open) {
      this.open = true;
      this.runStart[0] = this.p0;
      this.runStart[1] = this.p1;
      this.runStart[2] = this.p2;
      this.runStart[3] = this.p3;
    } else if (!match && this.open) {
      this.open = false;
      this.emitUntil(this.p0, this.p1, this.p2, this.p3);
    }
    this.p0 = w0;
    this.p1 = w1;
    this.p2 = w2;
    this.p3 = w3;
  }

  /** The last interval ran to the end of the space. */
  private finish(): void {
    if (this.open) this.emitLast();
    this.finished = true;
  }

  /** The open run ends just before w0–w3. */
  private emitUntil(w0: number, w1: number, w2: number, w3: number): void {
    if (this.version === 4) {
      this.sink.v4(this.runStart[3]!, w3 - 1);
      return;
    }
    const end = this.runEnd;
    end[0] = w0;
    end[1] = w1;
    end[2] = w2;
    end[3] = w3;
    // end - 1 (w0–w3 > runStart ≥ 0: no wrap)
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
