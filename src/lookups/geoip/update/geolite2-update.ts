// GeoLite2 City as the second location source, fetched with the operator's
// own MaxMind key while DB-IP stays the GeoIP data (MAXMIND_ACCOUNT_ID and
// MAXMIND_LICENSE_KEY set, DATA_SOURCE not maxmind, GEOLITE2_CITY_DB unset).
// The download is DATA_SOURCE=maxmind's City release (published checksum
// first, an unchanged release not downloaded again); the unpacked MMDB must
// be a City database, then the steps every opt-in source takes
// (opt-in-update.ts) put it in DATA_DIR/geolite2-city.mmdb, where the GeoIP
// load finds it (load.ts) and the reloader sees it change.
import type { SourceSettings } from './source-settings.js';
import {
  mmdbCheck,
  updateOptIn,
  type OptInUpdateOptions,
  type OptInUpdateResult,
} from './opt-in-update.js';
import { fetchedGeolite2Path } from './paths.js';
import { geolite2CityRelease } from './sources.js';

export const GEOLITE2_UPDATE_ID = 'geolite2-city';

export type Geolite2UpdateOptions = OptInUpdateOptions & { settings: SourceSettings };

export type Geolite2UpdateResult = OptInUpdateResult;

export function updateGeolite2City(options: Geolite2UpdateOptions): Promise<Geolite2UpdateResult> {
  return updateOptIn(
    {
      kind: GEOLITE2_UPDATE_ID,
      label: 'maxmind (second location source)',
      release: geolite2CityRelease(options.settings),
      targets: [fetchedGeolite2Path(options.dataDir)],
      problemOf: mmdbCheck((reader) => {
        const type = reader.metadata.databaseType;
        return !/City/i.test(type) || /ASN|ISP/i.test(type)
          ? `database type "${type}" is not a City database`
          : null;
      }),
      withFresh: (inUse, [fresh]) => ({ ...inUse, geolite2: fresh! }),
      refused: 'MAXMIND_ACCOUNT_ID / MAXMIND_LICENSE_KEY refused',
    },
    options,
  );
}
