// MaxMind DB files (MMDB format 2.0, https://maxmind.github.io/MaxMind-DB/)
// with a handful of networks, for GEOIP_DB/ASN_DB tests: City and ASN
// databases written by the export's own writer (src/export/mmdb-data.ts for
// the data section, mmdb-tree.ts for the search tree and the file). IPv4
// networks live under ::/96, as in MaxMind's own files; a more specific
// network inside a less specific one splits it.
import {
  MmdbDataWriter,
  MmdbDouble,
  MmdbUint,
  type MmdbValue as WriterValue,
} from '../../src/export/mmdb-data.js';
import { NO_DATA, buildTree, mmdbFileParts } from '../../src/export/mmdb-tree.js';

export { MmdbDouble, MmdbUint };

/** The writer's values, and plain numbers: whole ones in uint32's range are uint32, others doubles. */
export type MmdbValue =
  | string
  | number
  | boolean
  | MmdbUint
  | MmdbDouble
  | readonly MmdbValue[]
  | { readonly [key: string]: MmdbValue };

export interface MmdbNetwork {
  /** "81.2.69.0/24" or "2a02:d0c0::/29" */
  network: string;
  data: { readonly [key: string]: MmdbValue };
}

export interface MmdbOptions {
  databaseType: string;
  networks: readonly MmdbNetwork[];
  languages?: readonly string[];
  description?: string;
  /** seconds since the epoch */
  buildEpoch?: number;
  /** bits per tree record (spec § "Search Tree Section"); 24 unless said */
  recordSize?: 24 | 28 | 32;
}

function writerValue(value: MmdbValue): WriterValue {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value < 2 ** 32
      ? new MmdbUint(32, value)
      : new MmdbDouble(value);
  }
  if (typeof value !== 'object' || value instanceof MmdbUint || value instanceof MmdbDouble) {
    return value;
  }
  if (Array.isArray(value)) return (value as readonly MmdbValue[]).map(writerValue);
  return Object.fromEntries(
    Object.entries(value as { readonly [key: string]: MmdbValue }).map(([k, v]) => [
      k,
      writerValue(v),
    ]),
  );
}

/** An address as its bits, most significant first; IPv4 as the IPv4-compatible ::a.b.c.d. */
function addressBits(address: string): number[] {
  let bytes: number[];
  if (address.includes(':')) {
    const [head = '', tail] = address.split('::');
    const words = (part: string | undefined): number[] =>
      part === undefined || part === '' ? [] : part.split(':').map((w) => parseInt(w, 16));
    const h = words(head);
    const t = words(tail);
    const groups =
      tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
    if (groups.length !== 8 || groups.some((g) => !(g >= 0 && g <= 0xffff))) {
      throw new Error(`bad IPv6 address: ${address}`);
    }
    bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  } else {
    const octets = address.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255))) {
      throw new Error(`bad IPv4 address: ${address}`);
    }
    bytes = [...new Array<number>(12).fill(0), ...octets];
  }
  return bytes.flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
}

/** A network's first address and the one past its last, in the IPv6 space. */
function networkSpan(network: string): [bigint, bigint] {
  const [address = '', lengthText] = network.split('/');
  const length =
    (address.includes(':') ? 0 : 96) + Number(lengthText ?? (address.includes(':') ? 128 : 32));
  let start = 0n;
  for (const bit of addressBits(address).slice(0, length)) start = (start << 1n) | BigInt(bit);
  start <<= BigInt(128 - length);
  return [start, start + (1n << BigInt(128 - length))];
}

export function buildMmdb(options: MmdbOptions): Buffer {
  const data = new MmdbDataWriter();
  // gapless intervals of the whole space, each a data offset or NO_DATA,
  // painted less specific network first so that the more specific ones split them
  const starts: bigint[] = [0n];
  const values: number[] = [NO_DATA];
  const cut = (at: bigint): number => {
    let i = starts.findIndex((start) => start >= at);
    if (i === -1) i = starts.length;
    if (starts[i] !== at) {
      starts.splice(i, 0, at);
      values.splice(i, 0, values[i - 1]!);
    }
    return i;
  };
  const size = ([start, end]: [bigint, bigint]): bigint => end - start;
  const ordered = options.networks
    .map((network) => ({ ...network, span: networkSpan(network.network) }))
    .sort((a, b) => (size(a.span) > size(b.span) ? -1 : size(a.span) < size(b.span) ? 1 : 0));
  for (const { span, data: record } of ordered) {
    const offset = data.write(writerValue(record));
    const [start, end] = span;
    const first = cut(start);
    const last = end === 1n << 128n ? starts.length : cut(end);
    values.fill(offset, first, last);
  }
  const words = new Uint32Array(starts.length * 4);
  starts.forEach((start, i) => {
    for (let w = 0; w < 4; w++)
      words[i * 4 + w] = Number((start >> BigInt(96 - 32 * w)) & 0xffffffffn);
  });
  const section = Buffer.from(data.contents());
  const tree = buildTree(
    { starts: words, values: Uint32Array.from(values) },
    section.length,
    options.recordSize ?? 24,
  );
  return Buffer.concat(
    mmdbFileParts(tree, section, {
      databaseType: options.databaseType,
      languages: options.languages ?? ['en'],
      description: { en: options.description ?? `${options.databaseType} test database` },
      buildEpoch: options.buildEpoch ?? 1_700_000_000,
    }),
  );
}

/** A GeoLite2-City style record. */
export function cityRecord(fields: {
  country?: string;
  city?: string;
  region?: string;
  latitude?: number;
  longitude?: number;
  timeZone?: string;
  /** km; MaxMind's layout always has one (100 unless given) */
  accuracyRadius?: number;
}): { [key: string]: MmdbValue } {
  const record: { [key: string]: MmdbValue } = {};
  if (fields.country !== undefined) {
    record['country'] = { iso_code: fields.country, names: { en: `Country ${fields.country}` } };
  }
  if (fields.city !== undefined)
    record['city'] = { geoname_id: 1, names: { en: fields.city, de: `${fields.city} (de)` } };
  if (fields.region !== undefined) {
    record['subdivisions'] = [{ iso_code: 'XX', names: { en: fields.region } }];
  }
  const location: { [key: string]: MmdbValue } = { accuracy_radius: fields.accuracyRadius ?? 100 };
  if (fields.latitude !== undefined) location['latitude'] = new MmdbDouble(fields.latitude);
  if (fields.longitude !== undefined) location['longitude'] = new MmdbDouble(fields.longitude);
  if (fields.timeZone !== undefined) location['time_zone'] = fields.timeZone;
  record['location'] = location;
  return record;
}

/** A City file of GeoLite2-style records, one per network. */
export function cityFile(
  databaseType: string,
  places: Record<string, Parameters<typeof cityRecord>[0]>,
): Buffer {
  return buildMmdb({
    databaseType,
    networks: Object.entries(places).map(([network, fields]) => ({
      network,
      data: cityRecord(fields),
    })),
  });
}

/** A GeoIP2-City file placing 81.2.69.0/24 in London and 81.2.70.0/24 in Leeds. */
export function londonAndLeeds(): Buffer {
  return cityFile('GeoIP2-City', {
    '81.2.69.0/24': { country: 'GB', city: 'London', latitude: 51.5142, longitude: -0.0931 },
    '81.2.70.0/24': { country: 'GB', city: 'Leeds', latitude: 53.8008, longitude: -1.5491 },
  });
}

/**
 * An IPinfo Lite record (ipinfo_lite.mmdb): flat strings, the country and
 * continent beside the AS that holds the network.
 */
export function ipinfoLiteRecord(network: string, code: string): { [key: string]: MmdbValue } {
  return {
    network,
    country: `Country ${code}`,
    country_code: code,
    continent: 'Europe',
    continent_code: 'EU',
    asn: 'AS20712',
    as_name: 'Andrews & Arnold Ltd',
    as_domain: 'aa.net.uk',
  };
}
