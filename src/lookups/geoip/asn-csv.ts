// Parser for ip-location-db's ASN CSV (`start,end,asn,"organisation"`, RFC 4180
// quoting with doubled quotes). Pure: text in, rows out; bad rows are counted,
// not fatal, so one odd line in a monthly data drop cannot take the service down.
import { parseIp, type Ip } from '../../net/ip.js';

export interface AsnRange {
  start: Ip;
  end: Ip;
  asn: number;
  org: string | null;
}

export interface AsnCsvResult {
  rows: AsnRange[];
  rejected: number;
}

/**
 * The rows of one of our own committed tables (resources/*.csv: strict, since
 * we write them): blank and `#` lines skipped, the header checked, each row
 * split into exactly `columns` fields and handed to `row` with where it is
 * ("<file> line <n>"); a wrong header, a row of another width or a file
 * without a header throws, naming the file and line.
 */
export function eachTableRow(
  text: string,
  file: string,
  header: string,
  columns: number,
  row: (fields: string[], where: string, line: number) => void,
): void {
  let sawHeader = false;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file} line ${index + 1}`;
    if (!sawHeader) {
      if (line !== header) throw new Error(`${where}: expected header "${header}"`);
      sawHeader = true;
      return;
    }
    const fields = splitCsvLine(line);
    if (fields.length !== columns) {
      throw new Error(`${where}: expected ${columns} fields, found ${fields.length}`);
    }
    row(fields, where, index + 1);
  });
  if (!sawHeader) throw new Error(`${file}: no header row`);
}

/** Splits one CSV line into fields, honouring "quoted, fields" and "" escapes. */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      while (i < line.length) {
        const ch = line[i];
        if (ch === '"' && line[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (ch === '"') {
          i++;
          break;
        } else {
          value += ch;
          i++;
        }
      }
      fields.push(value);
      // skip to the next separator
      const comma = line.indexOf(',', i);
      i = comma === -1 ? line.length + 1 : comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      fields.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}

export function parseAsnCsv(text: string): AsnCsvResult {
  const rows: AsnRange[] = [];
  let rejected = 0;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line === '') continue;
    const [startText, endText, asnText, orgText] = splitCsvLine(line);
    const start = parseIp(startText ?? '');
    const end = parseIp(endText ?? '');
    const asn = Number(asnText);
    if (
      start === null ||
      end === null ||
      start.version !== end.version ||
      !Number.isInteger(asn) ||
      asn < 0 ||
      asn > 0xffffffff
    ) {
      rejected++;
      continue;
    }
    const org = orgText?.trim() ?? '';
    rows.push({ start, end, asn, org: org === '' ? null : org });
  }
  return { rows, rejected };
}
