// The opt-in sources no calibration has seen (IPinfo Lite with the
// operator's token: no copy of it was there to choose the rule or the radii
// on), joined to a calibrated answer without changing it (issue 42). Such a
// source never votes on the country, never moves the point and never
// changes the radius; it only
//  (a) fills in where no calibrated source answers anything — then the
//      answer has no radius (nothing calibrated it) and names that source;
//  (b) is named among the deciding sources (X-Location-Source) where its
//      country is the answer's.
// Pure: the reconciling compiler (compile/reconciled.ts) runs it once per
// distinct combination of source records, after reconcile() has answered
// from the calibrated sources alone.
import { hasPoint, type Reconciled, type SourceAnswer } from './reconcile.js';

/** The ids of `extra` answering `country`, after `named`, each once. */
function namedWith(named: readonly string[], extra: readonly SourceAnswer[], country: string) {
  const agreeing = extra.filter((a) => a.location.country === country).map((a) => a.source);
  return [...new Set([...named, ...agreeing])];
}

/**
 * The answer with the uncalibrated sources' part: `calibrated` is what the
 * rule answered from the calibrated sources (null: no calibrated source
 * answers anything there; where one does and the rule answers nothing, the
 * caller does not ask), `extra` the uncalibrated sources' answers in
 * priority order. Null when nothing is answered.
 */
export function withUncalibrated(
  calibrated: Reconciled | null,
  extra: readonly SourceAnswer[],
): Reconciled | null {
  if (calibrated !== null) {
    const country = calibrated.location.country;
    if (country === null || extra.length === 0) return calibrated;
    return { ...calibrated, decidedBy: namedWith(calibrated.decidedBy, extra, country) };
  }
  // a city source with a point fills in before a country-only one
  const filler =
    extra.find((a) => a.kind === 'city' && hasPoint(a.location) && a.location.country !== null) ??
    extra.find((a) => a.location.country !== null);
  if (filler === undefined) return null;
  const country = filler.location.country!;
  return {
    location: { ...filler.location },
    decidedBy: namedWith([filler.source], extra, country),
    bucket: null,
  };
}
