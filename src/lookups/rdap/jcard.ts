// Reading jCard (RFC 7095) rows from RDAP entities (RFC 9083 §5.1):
// `vcardArray` is ["vcard", [[name, params, type, value], …]].
import { isRecord, list, text } from './json-shape.js';

type Row = readonly [string, Record<string, unknown>, unknown, unknown];

function rows(entity: Record<string, unknown>): Row[] {
  const card = list(entity.vcardArray);
  if (card[0] !== 'vcard') return [];
  return list(card[1]).flatMap((row): Row[] => {
    if (!Array.isArray(row) || typeof row[0] !== 'string') return [];
    const params = isRecord(row[1]) ? row[1] : {};
    return [[row[0].toLowerCase(), params, row[2], row[3]]];
  });
}

/** The first text value of a property (fn, kind, email…), or null. */
export function vcardText(entity: Record<string, unknown>, name: string): string | null {
  for (const row of rows(entity)) {
    if (row[0] !== name) continue;
    const value = text(row[3]);
    if (value !== null) return value;
  }
  return null;
}

export function hasVcard(entity: Record<string, unknown>): boolean {
  return rows(entity).length > 0;
}

/**
 * The ISO country code of the first address that states one: the `cc`
 * parameter (RFC 8605 §3.1) or a two-letter country-name component, as
 * LACNIC writes it. Full names such as ARIN's "United States" in the label are
 * not codes and are not guessed from (docs/api.md, "Records", Whois).
 */
export function vcardCountryCode(entity: Record<string, unknown>): string | null {
  for (const row of rows(entity)) {
    if (row[0] !== 'adr') continue;
    const cc = text(row[1].cc);
    if (cc !== null && /^[A-Za-z]{2}$/.test(cc)) return cc.toUpperCase();
    const country = text(list(row[3])[6]);
    if (country !== null && /^[A-Z]{2}$/.test(country)) return country;
  }
  return null;
}
