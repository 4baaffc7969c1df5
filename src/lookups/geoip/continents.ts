// The continent of each country (ISO 3166-1 alpha-2), as GeoNames assigns
// them and MaxMind's City files carry them (`continent.code`): AF Africa, AN
// Antarctica, AS Asia, EU Europe, NA North America, OC Oceania, SA South
// America. The API answers the country only; the City export adds its
// continent from this table (a code not here: no continent), as the
// compatible formats do (src/api/compat/). Also each country's English name.
const BY_CONTINENT: Readonly<Record<string, string>> = {
  AF:
    'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ' +
    'ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS HM TF',
  AS:
    'AE AF AM AZ BD BH BN BT CC CN CX GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK ' +
    'MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TM TR TW UZ VN YE',
  EU:
    'AD AL AT AX BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI ' +
    'LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  NA:
    'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI ' +
    'PA PM PR SV SX TC TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TL TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

export const CONTINENT_NAMES: Readonly<Record<string, string>> = {
  AF: 'Africa',
  AN: 'Antarctica',
  AS: 'Asia',
  EU: 'Europe',
  NA: 'North America',
  OC: 'Oceania',
  SA: 'South America',
};

const CONTINENT_OF = new Map<string, string>(
  Object.entries(BY_CONTINENT).flatMap(([continent, codes]) =>
    codes.split(' ').map((country) => [country, continent] as const),
  ),
);

/** The continent code of a country code, or null. */
export function continentOf(country: string): string | null {
  return CONTINENT_OF.get(country) ?? null;
}

let countryNames: Intl.DisplayNames | null = null;
/** ICU's English names, asked once per code (a call costs microseconds) */
const namesByCode = new Map<string, string | null>();

/** ICU's English name of a country code (what MaxMind's files and ip-api answer), or null. */
export function countryName(code: string): string | null {
  let name = namesByCode.get(code);
  if (name === undefined) {
    countryNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    try {
      name = countryNames.of(code) ?? null;
    } catch {
      name = null;
    }
    namesByCode.set(code, name);
  }
  return name;
}
