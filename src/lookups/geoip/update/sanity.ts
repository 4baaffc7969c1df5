// The checks a freshly compiled data set must pass before it replaces the
// one answering now: not far smaller (a truncated or half-published file
// still parses), and the addresses the current data answers are still
// answered. Pure: tables in, a reason out.
import type { CompiledSet, Manifest } from '../compiled-set.js';
import { ALIAS, NONE, SPLIT, type RangeTable } from '../../../data/range-table.js';

/** An address to look up again in the new data: IPv4 as a number, IPv6 as 8 groups. */
export type Probe = { v: 4; value: number } | { v: 6; groups: number[] };

export interface Baseline {
  /** the current set's v4 + v6 range count */
  ranges: number;
  probes: Probe[];
}

export const DEFAULT_MIN_RATIO = 0.5;
/** share of the probes the new data must answer (addresses do move out of a data set) */
const MIN_ANSWERED = 0.9;
const PROBES_PER_FAMILY = 32;
/** entries scanned from each step for an answered one */
const SCAN_LIMIT = 4096;

/**
 * The data set's own ranges: a reconciled location table counts its GeoIP
 * source's alone (the embedded country sources' boundaries would hide a
 * shrunk file).
 */
function rangesOf(m: Pick<Manifest, 'counts' | 'location'>): number {
  return m.location?.sourceRanges ?? m.counts.v4Ranges + m.counts.v6Ranges + m.counts.v6SubRanges;
}

/**
 * Up to 32 IPv4 and 32 IPv6 range starts the table answers, spread evenly:
 * from 32 evenly spaced positions, the next answered range. Runs on the
 * main thread of a serving process, so it touches a few hundred entries,
 * never all 8 million.
 */
export function sampleProbes(table: RangeTable): Probe[] {
  const probes: Probe[] = [];
  const { v4, v6 } = table;
  for (const i of spread(table, v4.values, (value) => value !== NONE)) {
    table.need(v4.keys, i, i + 1);
    probes.push({ v: 4, value: v4.keys[i]! });
  }
  const plain = (value: number) => value !== NONE && (value & (SPLIT | ALIAS)) === 0;
  for (const i of spread(table, v6.values, plain)) {
    table.need(v6.keys, 2 * i, 2 * i + 2);
    const high = v6.keys[2 * i]!;
    const low = v6.keys[2 * i + 1]!;
    probes.push({
      v: 6,
      groups: [high >>> 16, high & 0xffff, low >>> 16, low & 0xffff, 0, 0, 0, 0],
    });
  }
  return probes;
}

/** Indexes of answered entries: the first one at or after each of 32 even steps (a bounded scan). */
function spread(
  table: RangeTable,
  values: Uint32Array,
  answered: (value: number) => boolean,
): number[] {
  const found = new Set<number>();
  const step = Math.max(1, values.length / PROBES_PER_FAMILY);
  for (let k = 0; k < PROBES_PER_FAMILY && k * step < values.length; k++) {
    const from = Math.floor(k * step);
    const to = Math.min(values.length, from + SCAN_LIMIT);
    table.need(values, from, to);
    for (let i = from; i < to; i++) {
      if (answered(values[i]!)) {
        found.add(i);
        break;
      }
    }
  }
  return [...found];
}

export function baselineOf(set: CompiledSet): Baseline {
  return { ranges: rangesOf(set.manifest), probes: sampleProbes(set.table) };
}

/** Null when `fresh` may replace the data the baseline came from; else why not. */
export function sanityProblem(
  fresh: Pick<CompiledSet, 'table'> & Pick<Manifest, 'counts' | 'location'>,
  baseline: Baseline | null,
  minRatio = DEFAULT_MIN_RATIO,
): string | null {
  if (fresh.counts.records === 0) return 'the new data holds no records';
  const ranges = rangesOf(fresh);
  if (baseline === null) return null;
  if (ranges < baseline.ranges * minRatio) {
    return `the new data has ${ranges} ranges, far fewer than the ${baseline.ranges} of the current data (at least ${Math.ceil(baseline.ranges * minRatio)} expected)`;
  }
  const answered = baseline.probes.filter(
    (p) => (p.v === 4 ? fresh.table.findV4(p.value) : fresh.table.findV6(p.groups)) !== NONE,
  ).length;
  if (baseline.probes.length > 0 && answered < baseline.probes.length * MIN_ANSWERED) {
    return `the new data answers only ${answered} of ${baseline.probes.length} addresses the current data answers`;
  }
  return null;
}
