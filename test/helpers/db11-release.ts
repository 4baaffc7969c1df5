// IP2Location LITE DB11 releases as its download serves them, modelled on
// the documented format: a ZIP holding one CSV whose rows are quoted
//   "ip_from","ip_to","country_code","country_name","region_name",
//   "city_name","latitude","longitude","zip_code","time_zone"
// with ip_from/ip_to decimal (IPv6: 128-bit, IPv4 as ::ffff:a.b.c.d), "-"
// for unknown, coordinates with six decimals, time_zone a UTC offset.
// Rows run gapless over the whole space, as IP2Location publishes them.
import { Buffer } from 'node:buffer';
import { ZipFile } from 'yazl';

export interface Db11Place {
  /** first and last address, as integers */
  from: bigint;
  to: bigint;
  country: string;
  countryName: string;
  region: string;
  city: string;
  latitude: number;
  longitude: number;
  zip: string;
  offset: string;
}

/** The integer of an IPv4 address. */
export const v4 = (text: string): bigint =>
  text.split('.').reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);

/** The integer of an IPv6 address written with `::` (at most one). */
export function v6(text: string): bigint {
  const [head = '', tail = ''] = text.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':'));
  const groups = [
    ...words(head),
    ...new Array<string>(8 - words(head).length - words(tail).length).fill('0'),
    ...words(tail),
  ];
  return groups.reduce((n: bigint, g: string) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const quoted = (fields: readonly (string | bigint)[]) => fields.map((f) => `"${f}"`).join(',');

/** The CSV text: `places` in address order, "-" rows in every gap, up to the end of the space. */
export function db11Csv(places: readonly Db11Place[], family: 4 | 6): string {
  const end = family === 4 ? (1n << 32n) - 1n : (1n << 128n) - 1n;
  const unknown = (from: bigint, to: bigint) =>
    quoted([from, to, '-', '-', '-', '-', '0.000000', '0.000000', '-', '-']);
  const rows: string[] = [];
  let next = 0n;
  for (const p of [...places].sort((a, b) => (a.from < b.from ? -1 : 1))) {
    if (p.from > next) rows.push(unknown(next, p.from - 1n));
    rows.push(
      quoted([
        p.from,
        p.to,
        p.country,
        p.countryName,
        p.region,
        p.city,
        p.latitude.toFixed(6),
        p.longitude.toFixed(6),
        p.zip,
        p.offset,
      ]),
    );
    next = p.to + 1n;
  }
  if (next <= end) rows.push(unknown(next, end));
  return `${rows.join('\r\n')}\r\n`;
}

/** A ZIP holding `name` with `text`, dated `modifiedAt`. */
export function zipOf(
  name: string,
  text: string,
  modifiedAt = new Date('2026-11-01T00:00:00Z'),
): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(text), name, { mtime: modifiedAt });
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}
