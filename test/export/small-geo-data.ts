// Small GEOIP_DB and ASN_DB files (a few networks, IPv4 and IPv6) for the
// export tests that run whole exports: each takes seconds, not minutes.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildMmdb, cityRecord, MmdbUint } from '../helpers/mmdb-writer.js';

/** Writes city.mmdb and asn.mmdb into `dir`; their paths. */
export async function writeSmallGeoData(dir: string): Promise<{ city: string; asn: string }> {
  const city = join(dir, 'city.mmdb');
  const asn = join(dir, 'asn.mmdb');
  await writeFile(
    city,
    buildMmdb({
      databaseType: 'GeoLite2-City',
      networks: [
        {
          network: '81.2.69.0/24',
          data: cityRecord({
            country: 'GB',
            city: 'London',
            region: 'England',
            latitude: 51.5142,
            longitude: -0.0931,
            timeZone: 'Europe/London',
          }),
        },
        { network: '185.65.134.0/24', data: cityRecord({ country: 'SE', city: 'Malmö' }) },
        { network: '2a02:d0c0::/29', data: cityRecord({ country: 'DE', city: 'Berlin' }) },
      ],
    }),
  );
  await writeFile(
    asn,
    buildMmdb({
      databaseType: 'GeoLite2-ASN',
      networks: [
        {
          network: '81.2.69.0/24',
          data: {
            autonomous_system_number: new MmdbUint(32, 20712),
            autonomous_system_organization: 'Andrews & Arnold Ltd',
          },
        },
        {
          network: '185.65.134.0/24',
          data: {
            autonomous_system_number: new MmdbUint(32, 39351),
            autonomous_system_organization: '31173 Services AB',
          },
        },
      ],
    }),
  );
  return { city, asn };
}
