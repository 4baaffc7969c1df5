// HTML text from values: every interpolated value goes through `escape`
// (HTML Living Standard §13.1.2.6: &, <, >, " and ' cover text and quoted
// attribute values), so a hostile query string or Host header stays text.
const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escape(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A definition list of the rows whose value is known ("—" for null). */
export function definitionList(
  rows: readonly (readonly [string, string | number | null])[],
): string {
  const items = rows
    .map(
      ([term, value]) => `<dt>${escape(term)}</dt><dd>${value === null ? '—' : escape(value)}</dd>`,
    )
    .join('');
  return `<dl>${items}</dl>`;
}

export interface Attribution {
  text: string;
  url: string;
  licence: string;
}

/** "IP geolocation by DB-IP (CC BY 4.0)" with the link the licence asks for. */
export function attributionLine(attributions: readonly Attribution[]): string {
  if (attributions.length === 0) return '';
  const links = attributions
    .map((a) => `<a href="${escape(a.url)}">${escape(a.text)}</a> (${escape(a.licence)})`)
    .join(', ');
  return `<p class="attribution">${links}</p>`;
}

/**
 * A link of the page with the caller's API key kept on (`?key=`): a page
 * opened as /?key=… asks the API, and shows curl commands, with that key.
 */
export function withKey(path: string, key: string | null): string {
  if (key === null) return path;
  return `${path}${path.includes('?') ? '&' : '?'}key=${encodeURIComponent(key)}`;
}

export function curlLine(origin: string, path: string): string {
  return `<p class="curl"><code>curl ${escape(`'${origin}${path}'`)}</code></p>`;
}
