// Which holders may still sit on spare units of a key's allowance, and until
// when: the cluster primary's side of "exactly the limit" (src/ratelimit/
// lease.ts). A holder is recorded when a grant gave it more units than it
// needed at once, until it gives that lease back; a later grant that leaves
// it nothing to spare forgets it too. A lease past its lapse that has not
// come back yet still counts for a grace: the holder's sweep and give-back
// come after the lapse, late on a busy machine. After the grace it is
// forgotten, as a holder that died never gives back. Only the current
// window's holds count: units of a closed window never come back into the
// next one.
import { GIVE_BACK_GRACE_LEASES } from './lease.js';

/** How often forgotten holds are dropped, ms (they are ignored past their grace anyway). */
const PRUNE_EVERY_MS = 5_000;

interface Hold {
  /** when the holder's lease lapses (epoch ms) */
  until: number;
  /** when a lease not given back by then is no longer waited for */
  forgetAt: number;
}

interface KeyHolds {
  window: string;
  byHolder: Map<number, Hold>;
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

  /** What a grant of `window` left `holder`: spare units for `holdMs`, or none (0). */
  record(key: string, window: string, holder: number, holdMs: number): void {
    this.pruneNow();
    let holds = this.byKey.get(key);
    if (holds === undefined || holds.window !== window) {
      if (holdMs === 0) {
        if (holds !== undefined) this.byKey.delete(key);
        return;
      }
      holds = { window, byHolder: new Map() };
      this.byKey.set(key, holds);
    }
    if (holdMs === 0) return this.release(key, window, holder);
    const until = this.now() + holdMs;
    holds.byHolder.set(holder, { until, forgetAt: until + GIVE_BACK_GRACE_LEASES * holdMs });
  }

  /** `holder` gave back its lease of `key` in `window`: nothing of it is to wait for. */
  release(key: string, window: string, holder: number): void {
    const holds = this.byKey.get(key);
    if (holds === undefined || holds.window !== window) return;
    holds.byHolder.delete(holder);
    if (holds.byHolder.size === 0) this.byKey.delete(key);
  }

  /**
   * ms to wait for other holders' spare units, 0 when there are none: until
   * the last open lease lapses, or 1 (ask again soon) while a lapsed one is
   * within its grace and not given back yet.
   */
  othersOpenFor(key: string, window: string, holder: number): number {
    const holds = this.byKey.get(key);
    if (holds === undefined || holds.window !== window) return 0;
    const now = this.now();
    let wait = 0;
    for (const [other, { until, forgetAt }] of holds.byHolder) {
      if (other !== holder && forgetAt > now) wait = Math.max(wait, until - now, 1);
    }
    return wait;
  }

  private pruneNow(): void {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const [key, holds] of this.byKey) {
      for (const [holder, hold] of holds.byHolder) {
        if (hold.forgetAt <= now) holds.byHolder.delete(holder);
      }
      if (holds.byHolder.size === 0) this.byKey.delete(key);
    }
  }
}
