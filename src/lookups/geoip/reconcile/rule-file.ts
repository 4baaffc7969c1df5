// The rule and radii chosen by `npm run eval-location -- --write` (docs/data.md),
// shipped in resources/: one per configuration, `default` (no key),
// `geolite2` (the operator's GeoLite2 City configured, in MaxMind's layout)
// and `geolite2Flat` (a GeoLite2 copy stating no accuracy_radius).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../../kit/project-root.js';
import type { ReconcileRule } from './reconcile.js';
import type { RadiusTable } from './radius.js';

export const LOCATION_RULE_FILE = 'resources/location-rule.json';

const choice = z.object({
  rule: z.object({
    country: z.enum(['first', 'majority']),
    nearKm: z.number().nonnegative(),
    near: z.enum(['first', 'second', 'named', 'stated']),
    far: z.enum(['first', 'second', 'named', 'stated']),
    disagreeing: z.enum(['keep', 'country-only']),
    statedKm: z.number().positive().optional(),
  }),
  radii: z.record(z.string(), z.number().int().positive()),
});

const ruleFile = z.object({ default: choice, geolite2: choice, geolite2Flat: choice });

export interface LocationChoice {
  rule: ReconcileRule;
  radii: RadiusTable;
}

export type LocationRules = Record<'default' | 'geolite2' | 'geolite2Flat', LocationChoice>;

export function loadLocationRules(path = join(PROJECT_ROOT, LOCATION_RULE_FILE)): LocationRules {
  return ruleFile.parse(JSON.parse(readFileSync(path, 'utf8')));
}
