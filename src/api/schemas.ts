// Response schemas: the single description of every record the API returns.
// The OpenAPI document is generated from them, the lookups' record types are
// checked against them at compile time (test/api/schemas.test.ts), and the
// tests validate live responses with them.
import { z } from 'zod';
import { ERROR_STATUS } from '../kit/errors.js';

const nullableString = (description: string) => z.string().nullable().meta({ description });

export const geoIpRecordSchema = z
  .object({
    ip: z.string().meta({ description: 'The address looked up, in canonical form.' }),
    country: z
      .string()
      .length(2)
      .nullable()
      .meta({ description: 'ISO 3166-1 alpha-2 country code.', examples: ['US'] }),
    city: nullableString('City name (English).'),
    region: nullableString('First-level subdivision (state, province, region).'),
    timezone: nullableString('IANA time zone name, from the location’s coordinates.'),
    latitude: z.number().nullable().meta({ description: 'Latitude in degrees (WGS 84).' }),
    longitude: z.number().nullable().meta({ description: 'Longitude in degrees (WGS 84).' }),
    accuracyRadiusKm: z
      .number()
      .int()
      .positive()
      .nullable()
      .meta({
        description:
          'Radius in km around the point within which the address lies for about two answers in three, from what the location sources say (their agreement, their kind); calibrated on independent ground truth (docs/data.md). Null for an answer without a point.',
        examples: [100],
      }),
    isp: nullableString(
      'Internet service provider; the AS organisation unless an ISP database is configured.',
    ),
    asn: z
      .string()
      .regex(/^AS\d+$/)
      .nullable()
      .meta({ description: 'Autonomous system number, as AS<number>.', examples: ['AS15169'] }),
    org: nullableString('Organisation holding the autonomous system.'),
    bogon: z.boolean().meta({
      description:
        'True for private, loopback, link-local, CGNAT, documentation and other special-purpose addresses; all other fields are then null.',
    }),
  })
  .meta({ id: 'GeoIpRecord' });

/** A host count: a JSON number, or a decimal string when it exceeds 2^53 − 1 (IPv6 only). */
const hostCount = (description: string) =>
  z.union([z.number().int(), z.string().regex(/^\d+$/)]).meta({
    description: `${description} A number, or a decimal string above 2^53 − 1 (IPv6 ranges shorter than /76).`,
  });

export const cidrRecordSchema = z
  .object({
    network: z.string().meta({ description: 'Network address: the first address of the range.' }),
    broadcast: z.string().nullable().meta({
      description: 'Last address of an IPv4 range; null for IPv6, which has no broadcast.',
    }),
    subnetMask: z
      .string()
      .meta({ description: 'Subnet mask: dotted for IPv4, IPv6 notation for IPv6.' }),
    totalHosts: hostCount('Number of addresses in the range.'),
    usableHosts: hostCount(
      'Addresses usable by hosts. IPv4: total minus network and broadcast, all of a /31 or /32 (RFC 3021). IPv6: total minus the Subnet-Router anycast address (RFC 4291 §2.6.1), all of a /127 (RFC 6164) or /128.',
    ),
    firstHost: z.string().meta({ description: 'First usable address.' }),
    lastHost: z
      .string()
      .meta({ description: 'Last usable address (IPv6: the last address of the range).' }),
    cidr: z.string().meta({ description: 'The range in canonical network/prefix form.' }),
    prefixLength: z.number().int().min(0).max(128),
    wildcardMask: z.string().meta({ description: 'Inverse of the subnet mask.' }),
  })
  .meta({ id: 'CidrRecord' });

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]),
      message: z.string(),
    }),
  })
  .meta({ id: 'Error' });

export const healthSchema = z.object({ status: z.literal('ok') });

export const readinessSchema = z.object({
  status: z.enum(['ready', 'starting']),
  dependencies: z.record(z.string(), z.string()).meta({
    description:
      'External dependencies and their state, e.g. {"redis": "down"}: while Redis is down the service still answers (cache misses, in-process rate limits).',
  }),
  dataSets: z.array(
    z.object({
      name: z.string(),
      kind: z.string(),
      source: z.string(),
      builtAt: z.string().nullable(),
      fetchedAt: z.string().nullable(),
      ageDays: z.number().int(),
    }),
  ),
  warnings: z.array(z.string()).meta({
    description:
      'Things an operator should act on that do not stop the service, e.g. a data set older than DATA_MAX_AGE_DAYS.',
  }),
});

export const serviceInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  documentation: z.string(),
  endpoints: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string() })),
  dataSources: z.array(
    z.object({
      name: z.string(),
      kind: z.string(),
      source: z.enum(['embedded', 'file', 'update']).meta({
        description:
          'embedded with the installation, a file the operator named (GEOIP_DB/ASN_DB), or fetched by an update',
      }),
      publisher: z
        .string()
        .nullable()
        .meta({ description: 'ip-location-db, dbip or maxmind for fetched data' }),
      version: z.string().nullable(),
      builtAt: z
        .string()
        .nullable()
        .meta({ description: "the data's own build date, when it says" }),
      fetchedAt: z.string().nullable().meta({ description: 'when an update fetched it' }),
      ageDays: z
        .number()
        .int()
        .meta({ description: 'days since the build date, else the fetch date' }),
      licence: z.string(),
      attribution: z.object({ text: z.string(), url: z.string() }).nullable(),
    }),
  ),
  locationSources: z
    .array(
      z.object({
        id: z.string().meta({ description: 'the id X-Location-Source names', examples: ['dbip'] }),
        name: z.string(),
        kind: z.enum(['city', 'country', 'cloud-region']).meta({
          description:
            "cloud-region: a cloud's range file, each prefix placed at its region's documented location",
        }),
        version: z.string().nullable(),
        builtAt: z.string().nullable(),
        ageDays: z.number().int(),
        licence: z.string(),
        attribution: z.object({ text: z.string(), url: z.string() }).nullable(),
      }),
    )
    .meta({
      description:
        'Every source the GeoIP location is reconciled from (docs/data.md), the GeoIP data set first.',
    }),
  warnings: z.array(z.string()).meta({
    description:
      'Data older than its age limit, as /readyz warns of it: a data set older than DATA_MAX_AGE_DAYS, an opt-in location source older than its own (GeoLite2 City: 35 days at most), geofeeds and cloud range files fetched more than DATA_MAX_AGE_DAYS ago.',
  }),
  feeds: z
    .array(
      z.object({
        id: z.string(),
        kind: z.string(),
        fetchedAt: z.string(),
        publishedAt: z.string().nullable().meta({
          description:
            'When the publisher says the feed was made: ISO 8601 UTC when it publishes a date, its serial otherwise (Azure changeNumber), null when it states neither.',
        }),
        prefixes: z.number().int(),
        skippedRows: z.number().int().meta({
          description: 'Malformed rows skipped while parsing (geofeeds; bounded).',
        }),
      }),
    )
    .meta({ description: 'The VPN/hosting/Tor feeds in use (npm run update-data).' }),
  geofeeds: z
    .array(
      z.object({
        id: z.string(),
        kind: z.enum(['relay', 'geofeed', 'cloud-region']).meta({
          description:
            "relay: a privacy relay's egress list (isRelay); geofeed: a network's own RFC 8805 feed; cloud-region: a cloud's range file placed by its regions (under the geofeeds)",
        }),
        fetchedAt: z.string(),
        publishedAt: z.string().nullable(),
        ageDays: z.number().int().meta({
          description:
            'Days since the publisher’s date when the feed states one, else since the fetch.',
        }),
        prefixes: z.number().int(),
        skippedRows: z.number().int().meta({
          description:
            'Rows skipped (a bad prefix, a country that is not ISO 3166-1); the rest answer.',
        }),
      }),
    )
    .meta({
      description:
        'The RFC 8805 geofeeds whose locations answer GeoIP lookups (docs/data.md, "Geofeeds").',
    }),
  overrides: z
    .object({
      file: z.string().meta({ description: "OVERRIDES_FILE's name (without its folder)" }),
      rows: z.number().int().meta({ description: 'Rows answering now (0 without a file).' }),
      loadedAt: z
        .string()
        .nullable()
        .meta({ description: 'When the rows answering now were read; null when none were.' }),
      version: z.string().meta({
        description: 'First 12 hex digits of the SHA-256 of the file answering, or "none".',
      }),
      refusedAt: z.string().nullable().meta({
        description:
          'When the file on disk was refused (its bad lines are in /readyz warnings); null when it answers.',
      }),
    })
    .nullable()
    .meta({ description: "The operator's corrections (docs/overrides.md)." }),
});

export const envelope = <T extends z.ZodType>(data: T) => z.object({ data });
