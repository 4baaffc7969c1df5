// The rows of the operator's overrides file, checked: a header naming the
// API's fields, a CIDR in the first column, each value of the kind its field
// holds. Pure: CSV text in, the rows or every problem with its line number
// (the file is taken whole or not at all, so every problem is reported at once).
import { parseCidr, type Cidr } from '../../net/cidr-match.js';
import { csvRecords, type CsvProblem } from '../../data/csv.js';

/** The values a row sets; a field the row leaves empty is absent (the data's value stands). */
export interface OverrideFields {
  country?: string;
  region?: string;
  city?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
  asn?: number;
  org?: string;
  isp?: string;
  isVpn?: boolean;
  isProxy?: boolean;
  isHosting?: boolean;
  isMobile?: boolean;
  provider?: string;
}

export interface OverrideRow {
  line: number;
  cidr: Cidr;
  /** the row's `label`, else its network: what `override:<label>` names in a detection answer */
  label: string;
  fields: OverrideFields;
}

export type OverrideColumn = keyof OverrideFields | 'label';

type Checker = (value: string) => { value: string | number | boolean } | { problem: string };

const TEXT_LIMIT = 200;
/**
 * made at the first country checked, as web/render.js does: ICU's
 * region names cost ~10-20 ms of every start-up otherwise, files or not
 */
let regions: Intl.DisplayNames | null = null;
/**
 * ICU's answer per code (two capitals: 676 at most). A geofeed asks once per
 * row, and DisplayNames.of costs ~5 µs: 2.5 s of CPU for a 500,000-row feed.
 */
const regionAnswers = new Map<string, boolean>();

function isRegion(code: string): boolean {
  let answer = regionAnswers.get(code);
  if (answer === undefined) {
    regions ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    answer = regions.of(code) !== undefined;
    regionAnswers.set(code, answer);
  }
  return answer;
}
/** codes ICU names that are not countries of ISO 3166-1 (a union, a macro-region, "unknown") */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'ZZ']);

const text: Checker = (value) =>
  value.length > TEXT_LIMIT
    ? { problem: `longer than ${TEXT_LIMIT} characters` }
    : /[\u0000-\u001f\u007f]/.test(value)
      ? { problem: 'holds a control character' }
      : { value };

const coordinate =
  (limit: number): Checker =>
  (value) => {
    const n = /^[-+]?\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(n) || Math.abs(n) > limit) {
      return { problem: `"${value}" is not a number from -${limit} to ${limit}` };
    }
    // the data's precision (4 decimals, ~11 m): an override answers like the data
    return { value: Math.round(n * 1e4) / 1e4 };
  };

const flag: Checker = (value) => {
  const lower = value.toLowerCase();
  return lower === 'true' || lower === 'false'
    ? { value: lower === 'true' }
    : { problem: `"${value}" is not true or false` };
};

/** A checker that answers each distinct value once (a file repeats its countries and zones). */
function memoised(check: Checker): Checker {
  const seen = new Map<string, ReturnType<Checker>>();
  return (value) => {
    let result = seen.get(value);
    if (result === undefined) {
      result = check(value);
      // bounded: the distinct values of one field are few (≈250 countries, ≈600 zones)
      if (seen.size < 4096) seen.set(value, result);
    }
    return result;
  };
}

/** An ISO 3166-1 alpha-2 country code (upper case), as ICU knows them; not EU, UN, ZZ… */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !NOT_COUNTRIES.has(code) && isRegion(code);
}

const CHECKERS: Record<OverrideColumn, Checker> = {
  country: memoised((value) => {
    const code = value.toUpperCase();
    return isCountryCode(code)
      ? { value: code }
      : { problem: `"${value}" is not an ISO 3166-1 alpha-2 country code` };
  }),
  region: text,
  city: text,
  latitude: coordinate(90),
  longitude: coordinate(180),
  timezone: memoised((value) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
      return { value };
    } catch {
      return { problem: `"${value}" is not an IANA time zone` };
    }
  }),
  asn: (value) => {
    const match = /^(?:AS)?(\d{1,10})$/i.exec(value);
    const n = match === null ? NaN : Number(match[1]);
    return n >= 1 && n <= 4_294_967_295
      ? { value: n }
      : { problem: `"${value}" is not an AS number (AS123 or 123)` };
  },
  org: text,
  isp: text,
  isVpn: flag,
  isProxy: flag,
  isHosting: flag,
  isMobile: flag,
  provider: text,
  label: text,
};

export const OVERRIDE_COLUMNS = Object.keys(CHECKERS) as OverrideColumn[];

export interface ParsedOverrides {
  rows: OverrideRow[];
  problems: CsvProblem[];
}

/** records checked between two pauses of parseOverridesInSlices (a few ms of work) */
const SLICE = 2_000;

/**
 * The rows of an overrides file, or (problems not empty) why it is refused,
 * pausing (`pause()`, e.g. a turn of the event loop) every few thousand
 * records: a large file is read while the service answers.
 */
export async function parseOverridesInSlices(
  source: string,
  pause: () => Promise<void>,
): Promise<ParsedOverrides> {
  const steps = parseSteps(source);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await pause();
  }
}

/** The parse, yielding after every SLICE records. */
function* parseSteps(source: string): Generator<void, ParsedOverrides, undefined> {
  const problems: CsvProblem[] = [];
  const rows: OverrideRow[] = [];
  const seen = new Map<string, number>();
  let columns: (OverrideColumn | null)[] | null = null;
  let count = 0;
  for (const item of csvRecords(source)) {
    if (++count % SLICE === 0) yield;
    if ('reason' in item) {
      problems.push(item);
      continue;
    }
    if (columns === null) {
      columns = headerColumns(item.fields, item.line, problems);
      continue;
    }
    const row = checkRow(item.fields, item.line, columns, problems);
    if (row === null) continue;
    const earlier = seen.get(row.cidr.text);
    if (earlier !== undefined) {
      problems.push({ line: row.line, reason: `${row.cidr.text} is given on line ${earlier} too` });
      continue;
    }
    seen.set(row.cidr.text, row.line);
    rows.push(row);
  }
  problems.sort((a, b) => a.line - b.line);
  return { rows, problems };
}

/** The header's columns after `network` (null for a column that is not a field, reported). */
function headerColumns(
  names: readonly string[],
  line: number,
  problems: CsvProblem[],
): (OverrideColumn | null)[] {
  const trimmed = names.map((n) => n.trim());
  if (trimmed[0] !== 'network') {
    problems.push({ line, reason: `the first column must be "network", not "${trimmed[0]}"` });
  }
  const seen = new Set<string>();
  return trimmed.slice(1).map((name) => {
    if (!(OVERRIDE_COLUMNS as string[]).includes(name)) {
      problems.push({
        line,
        reason: `unknown column "${name}" (columns: network, ${OVERRIDE_COLUMNS.join(', ')})`,
      });
      return null;
    }
    if (seen.has(name)) problems.push({ line, reason: `column "${name}" is given twice` });
    seen.add(name);
    return name as OverrideColumn;
  });
}

function checkRow(
  values: readonly string[],
  line: number,
  columns: readonly (OverrideColumn | null)[],
  problems: CsvProblem[],
): OverrideRow | null {
  if (values.length !== columns.length + 1) {
    problems.push({
      line,
      reason: `${values.length} fields where the header has ${columns.length + 1}`,
    });
    return null;
  }
  const network = values[0]!.trim();
  const cidr = network.includes('/') ? parseCidr(network) : null;
  let ok = true;
  if (cidr === null) {
    problems.push({ line, reason: `"${network}" is not a CIDR range (e.g. 10.1.0.0/16)` });
    ok = false;
  }
  const fields: Record<string, string | number | boolean> = {};
  columns.forEach((column, i) => {
    const value = values[i + 1]!.trim();
    if (column === null || value === '') return;
    const checked = CHECKERS[column](value);
    if ('problem' in checked) {
      problems.push({ line, reason: `${column}: ${checked.problem}` });
      ok = false;
    } else fields[column] = checked.value;
  });
  if (!ok || cidr === null) return null;
  const { label, ...set } = fields;
  return { line, cidr, label: typeof label === 'string' ? label : cidr.text, fields: set };
}
