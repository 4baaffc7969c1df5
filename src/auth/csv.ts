// CSV as RFC 4180 defines it (§2): fields separated by commas, records by
// line breaks (CRLF, or a lone LF as most editors write), a field in double
// quotes may hold commas, line breaks and doubled quotes (""). Pure: text in,
// records out, each with the line it starts on, so a file's problems can be
// named by line. Blank lines are skipped (a trailing newline is not a record).

export interface CsvRecord {
  /** 1-based line of the record's first character */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvSyntaxError';
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  // a byte order mark some editors put first is not part of the first field
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (at < text.length) {
    const start = line;
    const fields: string[] = [];
    let quotedField = false;
    for (;;) {
      let field: string;
      if (text[at] === '"') {
        quotedField = true;
        ({ field, at, line } = quoted(text, at + 1, line));
        const next = text[at];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new CsvSyntaxError(line, 'a quoted field must end at a comma or a line break');
        }
      } else {
        const end = fieldEnd(text, at);
        field = text.slice(at, end);
        if (field.includes('"')) {
          throw new CsvSyntaxError(line, 'a double quote inside a field that is not quoted');
        }
        at = end;
      }
      fields.push(field);
      if (text[at] !== ',') break;
      at++;
    }
    if (text[at] === '\r') at++;
    if (text[at] === '\n') at++;
    line++;
    // a line with nothing on it is blank; `""` is a record of one empty field
    if (quotedField || fields.length > 1 || fields[0] !== '') records.push({ line: start, fields });
  }
  return records;
}

/** The index of the comma or line break that ends an unquoted field at `at`. */
function fieldEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length) {
    const c = text[end];
    if (c === ',' || c === '\n' || c === '\r') break;
    end++;
  }
  return end;
}

/** A quoted field whose content starts at `at`: its text and where it ends. */
function quoted(
  text: string,
  at: number,
  line: number,
): { field: string; at: number; line: number } {
  const startLine = line;
  let field = '';
  for (;;) {
    const close = text.indexOf('"', at);
    if (close === -1) throw new CsvSyntaxError(startLine, 'a quoted field is never closed');
    const part = text.slice(at, close);
    field += part;
    line += countLines(part);
    if (text[close + 1] === '"') {
      field += '"';
      at = close + 2;
    } else {
      return { field, at: close + 1, line };
    }
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
