// The first-level subdivision code (ISO 3166-2 without its country: 'CA' for
// California, 'ENG' for England) of a region as the GeoIP data names it,
// which is what geoip-lite answers as `region`. The data has names only
// (DB-IP's are English, ASCII-folded: "Ile-de-France", "State of Berlin"), so
// a name is matched within its country against the English names of Unicode
// CLDR (cldr-subdivisions-full) and the ISO names (iso-3166), compared
// without accents, case, punctuation and words like "County" or "Region";
// failing that, the one subdivision whose name begins with it. A
// name that matches none or several answers '' (as geoip-lite answers a
// location without a subdivision). On the embedded DB-IP data 91.6 % of the
// place records with a region get a code (docs/library.md).
// The tables are read by the geofeeds' module (subdivision-names.ts), once
// for both readers; the matching rule here is the library's own.
import type { SubdivisionTables } from '../lookups/geofeed/subdivision-names.js';

type Names = Map<string, string>;

const LEADING = /^(the|state of|province of|region of|city of|republic of) /;
const TRAILING =
  / (county|region|voivodeship|oblast|province|governorate|district|prefecture|department|state|municipality|krai|kray|republic)$/;

/** A name without accents, case, punctuation. */
function comparable(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** A comparable name without the words that say what kind of subdivision it is. */
function bare(name: string): string {
  return name.replace(LEADING, '').replace(TRAILING, '').trim();
}

function buildNames({ iso, cldr, firstLevel }: SubdivisionTables): Map<string, Names> {
  const out = new Map<string, Names>();
  const add = (code: string, name: string) => {
    const country = code.slice(0, 2);
    let names = out.get(country);
    if (names === undefined) out.set(country, (names = new Map<string, string>()));
    const key = comparable(name);
    if (!names.has(key)) names.set(key, code.slice(3));
  };
  // first level only. ISO's own names first: where an English name of CLDR is
  // another's ISO name ("Buenos Aires": the province in ISO, the city in
  // CLDR), ISO's wins
  for (const [code, name] of iso) if (firstLevel.has(code)) add(code, name);
  for (const [code, name] of cldr) if (firstLevel.has(code)) add(code, name);
  return out;
}

function match(names: Names | undefined, region: string): string {
  if (names === undefined) return '';
  const name = comparable(region);
  const exact = names.get(name);
  if (exact !== undefined) return exact;
  const wanted = bare(name);
  const found = new Set<string>();
  for (const [key, code] of names) if (bare(key) === wanted) found.add(code);
  if (found.size === 0 && wanted.length >= 4) {
    for (const [key, code] of names) {
      const other = bare(key);
      if (other.startsWith(wanted)) {
        found.add(code);
      }
    }
  }
  return found.size === 1 ? [...found][0]! : '';
}

/** The subdivision code of a region in a country ('US', 'California' → 'CA'), or ''. */
export type RegionCode = (country: string, region: string) => string;

/** The region-code lookup over the tables; each country's names are matched once per region name. */
export function regionCodes(tables: SubdivisionTables): RegionCode {
  const byCountry = buildNames(tables);
  /** per country, region name → code as answered: bounded by the data's distinct regions */
  const answered = new Map<string, Map<string, string>>();
  return (country, region) => {
    let codes = answered.get(country);
    if (codes === undefined) answered.set(country, (codes = new Map<string, string>()));
    let code = codes.get(region);
    if (code === undefined) {
      code = match(byCountry.get(country), region);
      codes.set(region, code);
    }
    return code;
  };
}
