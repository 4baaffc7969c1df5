// One address's answer from a reconciled location table as the compiler
// made it (compile/reconciled.ts): its place, point, radius and the sources
// X-Location-Source would name, for the reconciling compiler's own tests.
import { NONE } from '../../src/data/range-table.js';
import type { ReconciledCompile } from '../../src/lookups/geoip/compile/reconciled.js';
import {
  INFO_RADIUS_MASK,
  INFO_SOURCES_SHIFT,
  NO_COORDINATE,
} from '../../src/lookups/geoip/compiled-set.js';
import { parseIp } from '../../src/net/ip.js';

export interface TableAnswer {
  country: string | null;
  city: string | null;
  /** degrees, null when the answer has no point */
  latitude: number | null;
  radiusKm: number | null;
  decidedBy: string | undefined;
}

/** null where the table answers nothing */
export function reconciledAnswer(result: ReconciledCompile, text: string): TableAnswer | null {
  const { compiled, decidedBy } = result;
  const ip = parseIp(text);
  if (ip === null) throw new Error(`not an address: ${text}`);
  const index =
    ip.version === 4 ? compiled.table.findV4(ip.value) : compiled.table.findV6(ip.groups);
  if (index === NONE) return null;
  const locations = compiled.locations!;
  const place = JSON.parse(`{${compiled.records.text(locations.place(index))}}`) as {
    country: string | null;
    city: string | null;
  };
  const info = locations.infoOf(index);
  const radius = info & INFO_RADIUS_MASK;
  const latitude = locations.latitude(index);
  return {
    country: place.country,
    city: place.city,
    latitude: latitude === NO_COORDINATE ? null : latitude / 1e4,
    radiusKm: radius === 0 ? null : radius,
    decidedBy: decidedBy[info >>> INFO_SOURCES_SHIFT],
  };
}
