// The location table made from several sources (issue 42): their ranges
// merged, each distinct combination of their answers reconciled once
// (reconcile/reconcile.ts, with the rule and radii `npm run eval-location`
// chose), equal answers one location. Off the request path: an answer then
// is one table search, as for a single source. Each location also keeps its
// radius and which sources decided it (Locations.info).
import { GrowableU32, V4Builder, V6Builder } from '../../../data/range-table-builder.js';
import { ALIAS, MAX_RECORDS, NONE, RangeTable } from '../../../data/range-table.js';
import { WHOLE } from '../../../data/table-file.js';
import { INFO_RADIUS_MASK, INFO_SOURCES_SHIFT, RecordCollector } from '../compiled-set.js';
import { locationJson, placeJson, type GeoLocation } from '../record-map.js';
import { reconcile, type SourceAnswer } from '../reconcile/reconcile.js';
import { radiusOf } from '../reconcile/radius.js';
import { withUncalibrated } from '../reconcile/uncalibrated.js';
import type { LocationChoice } from '../reconcile/rule-file.js';
import { finishLocations, scaled, type Compiled } from './compile.js';
import type { SourceLayer } from './layers.js';
import { mergeSegments } from './merge.js';

export interface ReconciledCompile {
  compiled: Compiled;
  /** X-Location-Source of each source set a location's info names */
  decidedBy: string[];
}

/** The reconciled locations, interned: equal answers (place, point, radius, sources) are one. */
class ReconciledSink {
  private readonly byKey = new Map<string, number>();
  private readonly places = new RecordCollector();
  private readonly placeOf = new GrowableU32();
  private readonly coordinates = new GrowableU32();
  private readonly info = new GrowableU32();
  private readonly sourceSets = new Map<string, number>();
  readonly decidedBy: string[] = [];

  intern(location: GeoLocation, radiusKm: number | null, sources: readonly string[]): number {
    const header = sources.join(', ');
    let set = this.sourceSets.get(header);
    if (set === undefined) {
      set = this.decidedBy.length;
      this.decidedBy.push(header);
      this.sourceSets.set(header, set);
    }
    const radius = radiusKm === null ? 0 : Math.min(radiusKm, INFO_RADIUS_MASK);
    const info = (radius | (set << INFO_SOURCES_SHIFT)) >>> 0;
    const key = `${locationJson(location)}|${info}`;
    let index = this.byKey.get(key);
    if (index === undefined) {
      index = this.placeOf.length;
      if (index > MAX_RECORDS) throw new Error('too many distinct locations');
      this.byKey.set(key, index);
      this.placeOf.push(this.places.intern(placeJson(location)));
      this.coordinates.push(scaled(location.latitude));
      this.coordinates.push(scaled(location.longitude));
      this.info.push(info);
    }
    return index;
  }

  locations(): Pick<Compiled, 'records' | 'locations'> {
    return finishLocations(this.places, this.placeOf, this.coordinates, this.info);
  }
}

const isEmpty = (l: GeoLocation): boolean =>
  l.country === null && l.city === null && l.region === null && l.latitude === null;

/**
 * A key for the sources' values at one place: one number when their answer
 * counts fit in 52 bits together (the usual case: millions of merged ranges,
 * no string each), else their text.
 */
function combinationKey(layers: readonly SourceLayer[]): (values: Uint32Array) => number | string {
  // room for each source's answers and NONE
  const sizes = layers.map((l) => l.answers.length + 1);
  if (sizes.reduce((bits, n) => bits + Math.log2(n), 0) > 52) return (values) => values.join(',');
  return (values) => {
    let key = 0;
    for (let i = 0; i < sizes.length; i++) {
      const v = values[i]!;
      key = key * sizes[i]! + (v === NONE ? sizes[i]! - 1 : v);
    }
    return key;
  };
}

/**
 * The sources (the first city source first: its IPv6 aliases are kept)
 * into one location table answering the reconciled location.
 */
export function compileReconciled(
  layers: readonly SourceLayer[],
  choice: LocationChoice,
): ReconciledCompile {
  const sink = new ReconciledSink();
  const byCombination = new Map<number | string, number>();
  const keyOf = combinationKey(layers);
  const combine = (values: Uint32Array): number => {
    const first = values[0]!;
    if (first !== NONE && (first & ALIAS) !== 0) return first;
    const key = keyOf(values);
    let index = byCombination.get(key);
    if (index === undefined) {
      const answers: SourceAnswer[] = [];
      // the uncalibrated sources' answers stay out of the rule (reconcile/uncalibrated.ts)
      const uncalibrated: SourceAnswer[] = [];
      layers.forEach((layer, i) => {
        const v = values[i]!;
        if (v === NONE) return;
        const statedKm = layer.stated?.[v] ?? null;
        const answer: SourceAnswer = {
          source: layer.id,
          kind: layer.kind,
          location: layer.answers[v]!,
          ...(statedKm === null ? {} : { statedKm }),
        };
        (layer.calibrated === false ? uncalibrated : answers).push(answer);
      });
      const ruled = answers.length === 0 ? null : reconcile(answers, choice.rule);
      // no answer at all (no source, or only country sources where the rule
      // answers no country) is NONE, as where no source speaks: an interned
      // empty location there would split the table at every boundary of a
      // country source (a GEOIP_DB with few networks got 237,096 IPv6 ranges
      // from the registry's alone)
      const empty = ruled !== null && ruled.decidedBy.length === 0 && isEmpty(ruled.location);
      // the uncalibrated sources fill in only where no calibrated one answers
      // anything: where one does and the rule answers nothing, nothing it stays
      const out =
        ruled === null
          ? withUncalibrated(null, uncalibrated)
          : empty
            ? null
            : withUncalibrated(ruled, uncalibrated);
      index =
        out === null
          ? NONE
          : sink.intern(out.location, radiusOf(out.bucket, choice.radii), out.decidedBy);
      byCombination.set(key, index);
    }
    return index;
  };
  const b4 = new V4Builder();
  mergeSegments(
    layers.map((l) => l.v4),
    1,
    combine,
    (start, value) => b4.add(start[0]!, value),
  );
  const b6 = new V6Builder();
  if (layers.some((l) => l.v6 !== null)) {
    mergeSegments(
      layers.map((l) => l.v6),
      4,
      combine,
      (s, value) => b6.add(s[0]!, s[1]!, s[2]!, s[3]!, value),
    );
  }
  return {
    compiled: {
      table: new RangeTable(b4.finish(), b6.finish()),
      ...sink.locations(),
      pager: WHOLE,
    },
    decidedBy: sink.decidedBy,
  };
}
