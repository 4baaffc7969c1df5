// Builds a RangeTable from range starts given in ascending address order,
// each with the record index (or NONE / ALIAS marker) that holds from there
// up to the next start. Consecutive starts with the same value are merged.
import { NONE, SPLIT, v4Jump, v6Jump, type V4Table, type V6Table } from './range-table.js';

/** A Uint32Array that grows by doubling (millions of entries, no JS number arrays). */
export class GrowableU32 {
  private data: Uint32Array;
  length = 0;

  /**
   * `capacity`: room for this many before the first doubling (a caller that
   * knows its size: each doubling is a new array, and V8 counts large
   * arrays as external memory whose growth starts a full garbage collection)
   */
  constructor(capacity = 1024) {
    this.data = new Uint32Array(Math.max(1, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  at(index: number): number {
    return this.data[index]!;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /** A copy trimmed to the length. */
  toArray(): Uint32Array {
    return this.data.slice(0, this.length);
  }

  /** The values so far, without a copy (a view: pushing more may leave it behind). */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

export class V4Builder {
  private readonly keys = new GrowableU32();
  private readonly values = new GrowableU32();
  private current = -1;
  private last = -1;

  add(start: number, value: number): void {
    if (this.last === -1 && start !== 0) throw new Error('the first IPv4 range must start at 0');
    if (start <= this.last) throw new Error(`IPv4 range starts out of order at ${start}`);
    this.last = start;
    if (value === this.current) return;
    this.keys.push(start);
    this.values.push(value);
    this.current = value;
  }

  finish(): V4Table {
    if (this.keys.length === 0) this.add(0, NONE);
    const keys = this.keys.toArray();
    return { keys, values: this.values.toArray(), jump: v4Jump(keys) };
  }
}

/** 64-bit numbers as (high, low) word pairs: a < b */
function less(ah: number, al: number, bh: number, bl: number): boolean {
  return ah < bh || (ah === bh && al < bl);
}

export class V6Builder {
  private readonly keys = new GrowableU32();
  private readonly values = new GrowableU32();
  private readonly splitAt = new GrowableU32();
  private readonly subKeys = new GrowableU32();
  private readonly subValues = new GrowableU32();
  private current = -1;
  private started = false;
  private lastStart: [number, number, number, number] = [0, 0, 0, 0];
  /** the /64 block with sub-ranges being filled, as (high, low) words */
  private open: [number, number] | null = null;

  /** A range start as four 32-bit words, most significant first. */
  add(w0: number, w1: number, w2: number, w3: number, value: number): void {
    this.checkOrder(w0, w1, w2, w3);
    if (value === this.current) return;
    if (w2 === 0 && w3 === 0) {
      this.close(w0, w1);
      this.pushMain(w0, w1, value);
    } else {
      if (this.open === null || this.open[0] !== w0 || this.open[1] !== w1) {
        this.close(w0, w1);
        this.openBlock(w0, w1);
      }
      this.subKeys.push(w2);
      this.subKeys.push(w3);
      this.subValues.push(value);
    }
    this.current = value;
  }

  finish(): V6Table {
    if (!this.started) this.add(0, 0, 0, 0, NONE);
    this.close(null);
    this.splitAt.push(this.subValues.length);
    const keys = this.keys.toArray();
    return {
      keys,
      values: this.values.toArray(),
      jump: v6Jump(keys),
      splitAt: this.splitAt.toArray(),
      subKeys: this.subKeys.toArray(),
      subValues: this.subValues.toArray(),
    };
  }

  private checkOrder(w0: number, w1: number, w2: number, w3: number): void {
    const [p0, p1, p2, p3] = this.lastStart;
    if (!this.started) {
      if (w0 !== 0 || w1 !== 0 || w2 !== 0 || w3 !== 0) {
        throw new Error('the first IPv6 range must start at ::');
      }
      this.started = true;
    } else if (!(less(p0, p1, w0, w1) || (p0 === w0 && p1 === w1 && less(p2, p3, w2, w3)))) {
      throw new Error('IPv6 range starts out of order');
    }
    this.lastStart = [w0, w1, w2, w3];
  }

  private pushMain(high: number, low: number, value: number): void {
    this.keys.push(high);
    this.keys.push(low);
    this.values.push(value);
  }

  /**
   * Ends the open split block before the next main key (nextHigh, nextLow):
   * the value in force at the block's end carries on from the next /64
   * (`null`: no next key, the table ends).
   */
  private close(nextHigh: number | null, nextLow = 0): void {
    if (this.open === null) return;
    const [high, low] = this.open;
    this.open = null;
    if (high === 0xffffffff && low === 0xffffffff) return;
    const afterLow = (low + 1) >>> 0;
    const afterHigh = afterLow === 0 ? high + 1 : high;
    // the next key starts right there: it has a value of its own, or (a split
    // block) takes the value in force as its first sub-range
    if (afterHigh === nextHigh && afterLow === nextLow) return;
    this.pushMain(afterHigh, afterLow, this.current);
  }

  private openBlock(high: number, low: number): void {
    const block = this.splitAt.length;
    this.splitAt.push(this.subValues.length);
    const lastIndex = this.values.length - 1;
    if (
      lastIndex >= 0 &&
      this.keys.at(2 * lastIndex) === high &&
      this.keys.at(2 * lastIndex + 1) === low
    ) {
      // the block's first range started exactly at its /64: it becomes the first sub-range
      this.subKeys.push(0);
      this.subKeys.push(0);
      this.subValues.push(this.values.at(lastIndex));
      this.values.set(lastIndex, (SPLIT | block) >>> 0);
    } else {
      this.subKeys.push(0);
      this.subKeys.push(0);
      this.subValues.push(this.current);
      this.pushMain(high, low, (SPLIT | block) >>> 0);
    }
    this.open = [high, low];
  }
}
