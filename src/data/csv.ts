// CSV as RFC 4180 §2 defines it, for the operator's files (overrides, API keys): fields
// separated by commas, records by CRLF (a bare LF is accepted too: files
// written on Unix), a field in double quotes may hold commas, line breaks and
// quotes doubled (""). Pure: text in, records with the line each starts on.

export interface CsvRecord {
  /** 1-based number of the line the record starts on (a quoted line break makes a record span lines) */
  line: number;
  fields: string[];
}

export interface CsvProblem {
  line: number;
  reason: string;
}

export interface CsvResult {
  records: CsvRecord[];
  problems: CsvProblem[];
}

/**
 * Every record of `text`, blank lines skipped. A malformed record (a quote
 * inside an unquoted field, text after a closing quote, a quote never closed)
 * is a problem naming its line, and is left out.
 */
export function parseCsv(text: string): CsvResult {
  const records: CsvRecord[] = [];
  const problems: CsvProblem[] = [];
  for (const item of csvRecords(text)) {
    if ('reason' in item) problems.push(item);
    else records.push(item);
  }
  return { records, problems };
}

/** parseCsv one record (or problem) at a time, so that a caller can pause between them. */
export function* csvRecords(text: string): Generator<CsvRecord | CsvProblem, void, undefined> {
  let line = 1;
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark is not data
  while (at < text.length) {
    const startLine = line;
    const fields: string[] = [];
    let problem: string | null = null;
    for (;;) {
      let field = '';
      if (text[at] === '"') {
        at++;
        for (;;) {
          if (at >= text.length) {
            problem ??= 'a quoted field is never closed';
            break;
          }
          const c = text[at]!;
          if (c === '"') {
            if (text[at + 1] === '"') {
              field += '"';
              at += 2;
              continue;
            }
            at++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          at++;
        }
        const next = text[at];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          problem ??= 'text after a closing quote (a quote inside a field is written "")';
        }
      }
      const end = endOfField(text, at);
      if (end > at) {
        const rest = text.slice(at, end);
        if (rest.includes('"')) problem ??= 'a quote inside an unquoted field (quote the field)';
        field += rest;
        at = end;
      }
      fields.push(field);
      if (text[at] === ',') {
        at++;
        continue;
      }
      break;
    }
    if (text[at] === '\r') at++;
    if (text[at] === '\n') at++;
    line++;
    if (problem !== null) yield { line: startLine, reason: problem };
    else if (!(fields.length === 1 && fields[0]!.trim() === '')) {
      yield { line: startLine, fields };
    }
  }
}

/** Where an unquoted field (or what follows a closing quote) ends: a comma or a line break. */
function endOfField(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c === 44 /* , */ || c === 10 /* \n */ || c === 13 /* \r */) break;
    at++;
  }
  return at;
}
