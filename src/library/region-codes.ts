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
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { iso31662 } from 'iso-3166';

type Names = Map<string, string>;

/** per country, the subdivisions' comparable names → their code; built at the first call */
let byCountry: Map<string, Names> | null = null;
/** per country, region name → code as answered: bounded by the data's distinct regions */
const answered = new Map<string, Map<string, string>>();

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

function buildNames(): Map<string, Names> {
  // first level only: the subdivisions whose parent is the country itself
  const firstLevel = new Set(iso31662.filter((e) => e.parent.length === 2).map((e) => e.code));
  const out = new Map<string, Names>();
  const add = (code: string, name: string) => {
    const country = code.slice(0, 2);
    let names = out.get(country);
    if (names === undefined) out.set(country, (names = new Map<string, string>()));
    const key = comparable(name);
    if (!names.has(key)) names.set(key, code.slice(3));
  };
  // ISO's own names first: where an English name of CLDR is another's ISO
  // name ("Buenos Aires": the province in ISO, the city in CLDR), ISO's wins
  for (const entry of iso31662) if (firstLevel.has(entry.code)) add(entry.code, entry.name);
  const cldrFile = createRequire(import.meta.url).resolve(
    'cldr-subdivisions-full/subdivisions/en/en.json',
  );
  const cldr = JSON.parse(readFileSync(cldrFile, 'utf8')) as {
    subdivisions: { localeDisplayNames: { subdivisions: Record<string, string> } };
  };
  // CLDR keys are the code in lower case without its hyphen: "usca", "gbeng"
  for (const [key, name] of Object.entries(cldr.subdivisions.localeDisplayNames.subdivisions)) {
    const code = `${key.slice(0, 2)}-${key.slice(2)}`.toUpperCase();
    if (firstLevel.has(code)) add(code, name);
  }
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

/** The subdivision code of `region` in `country` ('US', 'California' → 'CA'), or ''. */
export function regionCode(country: string, region: string): string {
  let codes = answered.get(country);
  if (codes === undefined) answered.set(country, (codes = new Map<string, string>()));
  let code = codes.get(region);
  if (code === undefined) {
    byCountry ??= buildNames();
    code = match(byCountry.get(country), region);
    codes.set(region, code);
  }
  return code;
}
