// The curated ASN → class table (resources/asn-classes.csv). The parser is
// pure and strict: the file is ours and committed, so a malformed row is a bug
// to fail loudly on at start-up, not a line to skip.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kit/project-root.js';
import { eachTableRow } from '../geoip/asn-csv.js';

export type AsnClass = 'hosting' | 'vpn' | 'mobile' | 'isp';

export interface AsnClassEntry {
  readonly asn: number;
  readonly name: string;
  readonly class: AsnClass;
  readonly source: string;
}

export type AsnClassTable = ReadonlyMap<number, AsnClassEntry>;

const CLASSES: ReadonlySet<string> = new Set(['hosting', 'vpn', 'mobile', 'isp']);
const HEADER = 'asn,name,class,source';

function isAsnClass(value: string): value is AsnClass {
  return CLASSES.has(value);
}

/** Parses the CSV text; throws naming the line on the first bad row or duplicate ASN. */
export function parseAsnClasses(text: string): Map<number, AsnClassEntry> {
  const table = new Map<number, AsnClassEntry>();
  eachTableRow(text, 'asn-classes.csv', HEADER, 4, (fields, where) => {
    const [asnText = '', name = '', cls, source] = fields;
    const asn = Number(asnText);
    if (!/^[1-9]\d{0,9}$/.test(asnText) || asn > 4_294_967_295) {
      throw new Error(`${where}: bad ASN ${JSON.stringify(asnText)}`);
    }
    if (cls === undefined || !isAsnClass(cls)) throw new Error(`${where}: bad class ${cls ?? ''}`);
    if (source === undefined || source === '') throw new Error(`${where}: empty source`);
    if (table.has(asn)) throw new Error(`${where}: AS${asn} listed twice`);
    table.set(asn, { asn, name, class: cls, source });
  });
  return table;
}

/** The committed file, in the installation (src/, dist/src/ and dist/bundle/ alike). */
export function defaultAsnClassesPath(): string {
  return join(PROJECT_ROOT, 'resources', 'asn-classes.csv');
}

export async function loadAsnClasses(path = defaultAsnClassesPath()): Promise<AsnClassTable> {
  return parseAsnClasses(await readFile(path, 'utf8'));
}
