// Several sources' ranges of one family merged into one table: the union of
// their boundaries, each merged range given what `combine` makes of the
// sources' values there. One sweep in address order, a cursor per source.
import type { Segments } from './layers.js';

/** `combine` takes the values (one per source, NONE where it has none) of a merged range. */
export function mergeSegments(
  sources: readonly (Segments | null)[],
  words: 1 | 4,
  combine: (values: Uint32Array) => number,
  emit: (start: Uint32Array, value: number) => void,
): void {
  const present = sources.filter((s): s is Segments => s !== null && s.values.length > 0);
  const slot = sources.map((s) => (s === null ? -1 : present.indexOf(s)));
  const cursor = new Uint32Array(present.length);
  const values = new Uint32Array(sources.length).fill(0xffffffff);
  const at = new Uint32Array(words);
  /** source k's next start compared with `at`: <0, 0, >0; none left: +1 */
  const nextVersusAt = (k: number): number => {
    const s = present[k]!;
    const next = cursor[k]! + 1;
    if (next >= s.values.length) return 1;
    for (let w = 0; w < words; w++) {
      const a = s.starts[next * words + w]!;
      const b = at[w]!;
      if (a !== b) return a < b ? -1 : 1;
    }
    return 0;
  };
  for (;;) {
    for (let i = 0; i < sources.length; i++) {
      const k = slot[i]!;
      values[i] = k === -1 ? 0xffffffff : present[k]!.values[cursor[k]!]!;
    }
    emit(at, combine(values));
    // the nearest next start among the sources
    let nearest = -1;
    for (let k = 0; k < present.length; k++) {
      const s = present[k]!;
      const next = cursor[k]! + 1;
      if (next >= s.values.length) continue;
      if (nearest === -1) {
        nearest = k;
        continue;
      }
      const t = present[nearest]!;
      const tn = cursor[nearest]! + 1;
      for (let w = 0; w < words; w++) {
        const a = s.starts[next * words + w]!;
        const b = t.starts[tn * words + w]!;
        if (a !== b) {
          if (a < b) nearest = k;
          break;
        }
      }
    }
    if (nearest === -1) return;
    const t = present[nearest]!;
    const tn = cursor[nearest]! + 1;
    for (let w = 0; w < words; w++) at[w] = t.starts[tn * words + w]!;
    for (let k = 0; k < present.length; k++) if (nextVersusAt(k) === 0) cursor[k] = cursor[k]! + 1;
  }
}
