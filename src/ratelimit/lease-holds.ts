// Which holders may still sit on spare units of a key's allowance, and until
// when: the cluster primary's side of "exactly the limit" (src/ratelimit/
// lease.ts). A holder is recorded when a grant gave it more units than it
// needed at once, until its lease lapses; a later grant that leaves it
// nothing to spare forgets it. Only the current window's holds count: units
// of a closed window never come back into the next one.

/** How often lapsed holds are dropped, ms (they are ignored once lapsed anyway). */
const PRUNE_EVERY_MS = 5_000;

interface KeyHolds {
  window: string;
  /** holder → when its lease lapses (epoch ms) */
  until: Map<number, number>;
}

export class LeaseHolds {
  private readonly byKey = new Map<string, KeyHolds>();
  private prunedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.prunedAt = now();
  }

  /** keys with holds recorded (for tests) */
  get size(): number {
    return this.byKey.size;
  }

  /** What a grant of `window` left `holder`: spare units until `spareUntil`, or none (0). */
  record(key: string, window: string, holder: number, spareUntil: number): void {
    this.pruneNow();
    let holds = this.byKey.get(key);
    if (holds === undefined || holds.window !== window) {
      if (spareUntil === 0) {
        if (holds !== undefined) this.byKey.delete(key);
        return;
      }
      holds = { window, until: new Map() };
      this.byKey.set(key, holds);
    }
    if (spareUntil === 0) holds.until.delete(holder);
    else holds.until.set(holder, spareUntil);
    if (holds.until.size === 0) this.byKey.delete(key);
  }

  /** ms until the last open lease with spare units of another holder lapses; 0 when none is open. */
  othersOpenFor(key: string, window: string, holder: number): number {
    const holds = this.byKey.get(key);
    if (holds === undefined || holds.window !== window) return 0;
    const now = this.now();
    let last = now;
    for (const [other, until] of holds.until) {
      if (other !== holder && until > last) last = until;
    }
    return last - now;
  }

  private pruneNow(): void {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const [key, holds] of this.byKey) {
      for (const [holder, until] of holds.until) if (until <= now) holds.until.delete(holder);
      if (holds.until.size === 0) this.byKey.delete(key);
    }
  }
}
