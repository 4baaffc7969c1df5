// The names an ISO 3166-2 code goes by, from two published tables: the ISO
// list's own names (`iso-3166`: often in the local language, `Bayern`,
// `District of Columbia`) and CLDR's English display names
// (`cldr-subdivisions-full`: `Bavaria`, `Washington DC`). A geofeed row
// names its region by code; the GeoIP data names regions in English words
// of its own. Neither table alone matches the data's naming (of the fixture
// feeds' 977 codes, 158 the feeds' rows could not teach: the ISO names
// name 65 of them, CLDR's 89, `US-DC` only ISO's), so the resolver tries
// every name each gives against the data's region names (place-resolve.ts).
//
// Loaded once, when geofeeds are first compiled: ~5,000 codes, ~300 KB.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** code (`US-DC`) → its names, ISO's first; none for a code neither table knows */
export type SubdivisionNames = (code: string) => readonly string[];

/** The two tables as read, for a reader with a matching rule of its own (the library's region codes). */
export interface SubdivisionTables {
  /** code → the ISO list's name */
  iso: ReadonlyMap<string, string>;
  /** code → CLDR's English display name */
  cldr: ReadonlyMap<string, string>;
  /** the first-level codes: those whose parent is the country itself (`US-CA`, not `GB-LND`) */
  firstLevel: ReadonlySet<string>;
}

interface CldrFile {
  subdivisions: { localeDisplayNames: { subdivisions: Record<string, string> } };
}

let loadingTables: Promise<SubdivisionTables> | null = null;
let loadingNames: Promise<SubdivisionNames> | null = null;

/** The two tables, read once; the same promise for every caller. */
export function subdivisionTables(): Promise<SubdivisionTables> {
  loadingTables ??= loadTables();
  return loadingTables;
}

/** The two tables as one lookup; the same promise for every caller. */
export function subdivisionNames(): Promise<SubdivisionNames> {
  loadingNames ??= subdivisionTables().then(({ iso, cldr }) => {
    const names = new Map<string, string[]>();
    const add = (code: string, name: string): void => {
      const list = names.get(code);
      if (list === undefined) names.set(code, [name]);
      else if (!list.includes(name)) list.push(name);
    };
    for (const [code, name] of iso) add(code, name);
    for (const [code, name] of cldr) add(code, name);
    return (code: string) => names.get(code) ?? [];
  });
  return loadingNames;
}

async function loadTables(): Promise<SubdivisionTables> {
  const { iso31662 } = await import('iso-3166');
  const cldrPath = createRequire(import.meta.url).resolve(
    'cldr-subdivisions-full/subdivisions/en/en.json',
  );
  const cldrFile = (JSON.parse(await readFile(cldrPath, 'utf8')) as CldrFile).subdivisions
    .localeDisplayNames.subdivisions;
  const iso = new Map<string, string>();
  const firstLevel = new Set<string>();
  for (const entry of iso31662) {
    if (!iso.has(entry.code)) iso.set(entry.code, entry.name);
    if (entry.parent.length === 2) firstLevel.add(entry.code);
  }
  // CLDR writes `usdc` for US-DC: the country, then the code's own part
  const cldr = new Map<string, string>();
  for (const [key, name] of Object.entries(cldrFile)) {
    if (/^[a-z]{2}[a-z0-9]{1,3}$/.test(key))
      cldr.set(`${key.slice(0, 2)}-${key.slice(2)}`.toUpperCase(), name);
  }
  return { iso, cldr, firstLevel };
}
