// @ts-check
// The panels of the web page's lookups, built from the API's JSON with DOM
// calls (text is set as text: nothing the API or the query says becomes
// markup). The server renders the same panels for the first view
// (src/web/panels-html.ts).

/**
 * @param {string} tag
 * @param {Record<string, string>} attrs
 * @param {(Node | string)[]} children
 */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** @param {[string, string | number | null][]} rows */
export function dl(rows) {
  return el(
    'dl',
    {},
    rows.flatMap(([term, value]) => [
      el('dt', {}, [term]),
      el('dd', {}, [value === null ? '—' : String(value)]),
    ]),
  );
}

/** @param {string} message the API's own words */
export function errorPanel(message) {
  return el('p', { class: 'error', role: 'alert' }, [message]);
}

/** @param {string[]} items */
const list = (items) =>
  el(
    'ul',
    {},
    items.map((item) => el('li', {}, [item])),
  );

/**
 * The X-Data-Attribution header (`text <url> (licence), …`) as links: the
 * licence of DB-IP's data asks for one wherever its data is shown.
 * @param {string | null} header
 * @returns {Node[]}
 */
function attribution(header) {
  if (header === null) return [];
  const links = [...header.matchAll(/\s*([^<,][^<]*?) <([^>]+)> \(([^)]+)\)/g)].flatMap((m, i) => [
    ...(i > 0 ? [', '] : []),
    el('a', { href: m[2] ?? '' }, [m[1] ?? '']),
    ` (${m[3]})`,
  ]);
  return links.length === 0 ? [] : [el('p', { class: 'attribution' }, links)];
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** @param {string | null} code */
function country(code) {
  if (code === null) return null;
  const name = regionNames.of(code);
  return name === undefined || name === code ? code : `${name} (${code})`;
}

/** @param {{ asn: string | null, org: string | null }} r */
const network = (r) => (r.asn === null ? r.org : r.org === null ? r.asn : `${r.asn} ${r.org}`);

const FLAGS = /** @type {const} */ ([
  ['isVpn', 'VPN'],
  ['isProxy', 'proxy'],
  ['isTor', 'Tor exit'],
  ['isRelay', 'privacy relay'],
  ['isHosting', 'hosting'],
  ['isMobile', 'mobile network'],
]);

/**
 * @typedef {import('./api').GeoIpRecord} GeoIpRecord
 * @typedef {import('./api').VpnRecord} VpnRecord
 * @typedef {import('./api').WhoisRecord} WhoisRecord
 * @typedef {import('./api').ReverseRecord} ReverseRecord
 * @typedef {import('./api').BlacklistRecord} BlacklistRecord
 * @typedef {import('./api').DnsRecords} DnsRecords
 * @typedef {import('./api').CidrRecord} CidrRecord
 */

/** @param {unknown} data @param {string | null} header */
function geoip(data, header) {
  const geo = /** @type {GeoIpRecord} */ (data);
  if (geo.bogon) {
    return [
      el('p', { class: 'bogon' }, [
        `${geo.ip} is a private, loopback or other special-purpose address: it has no public location or network.`,
      ]),
    ];
  }
  const coordinates = geo.latitude === null ? null : `${geo.latitude}, ${geo.longitude}`;
  return [
    dl([
      ['Country', country(geo.country)],
      ['Region', geo.region],
      ['City', geo.city],
      ['Time zone', geo.timezone],
      ['Coordinates', coordinates],
      ['Network', network(geo)],
    ]),
    ...attribution(header),
  ];
}

/** @param {unknown} data @param {string | null} header */
function vpn(data, header) {
  const v = /** @type {VpnRecord} */ (data);
  const flags = FLAGS.filter(([key]) => v[key]).map(([, label]) => label);
  const said = flags.length === 0 ? 'No VPN, proxy or hosting signal' : flags.join(', ');
  const service = v.provider === null ? '' : `: ${v.provider}`;
  const verdict = `${said.charAt(0).toUpperCase()}${said.slice(1)}${service} (confidence ${v.confidence})`;
  const reasons =
    v.reasons.length === 0
      ? [el('p', {}, ['Reasons: none'])]
      : [
          el('p', {}, ['Reasons:']),
          el(
            'ul',
            { class: 'reasons' },
            v.reasons.map((r) => el('li', {}, [el('code', {}, [r])])),
          ),
        ];
  return [el('p', { class: 'verdict' }, [verdict]), ...reasons, ...attribution(header)];
}

/** @param {unknown} data */
function whois(data) {
  const w = /** @type {WhoisRecord} */ (data);
  const events = w.events.map((e) => `${e.action}: ${e.date}`);
  return [
    dl([
      ['Network', w.name],
      ['Handle', w.handle],
      ['Range', w.startAddress === null ? null : `${w.startAddress} – ${w.endAddress ?? ''}`],
      ['CIDR', w.cidrs.length === 0 ? null : w.cidrs.join(', ')],
      ['Country', country(w.country)],
      ['Registrant', w.registrant],
      ['Type', w.type],
      ['Registry', `${w.registry ?? 'unknown'} (${w.source})`],
      ['Abuse contact', w.abuseEmail],
    ]),
    ...(events.length === 0 ? [] : [list(events)]),
  ];
}

/** @param {unknown} data */
function reverse(data) {
  const r = /** @type {ReverseRecord} */ (data);
  // a PTR name is the reverse zone's word; a confirmed one its own zone's too
  return [
    r.hostnames.length === 0
      ? el('p', {}, [`No PTR record at ${r.ptr}.`])
      : list(
          r.hostnames.map(
            (h) =>
              `${h} — ${r.confirmedHostnames.includes(h) ? 'forward-confirmed' : 'not confirmed'}`,
          ),
        ),
  ];
}

/** @param {string[]} headings @param {string[][]} rows @param {(row: number, column: number) => string} [cellClass] */
function table(headings, rows, cellClass = () => '') {
  const head = el(
    'tr',
    {},
    headings.map((h) => el('th', { scope: 'col' }, [h])),
  );
  const body = rows.map((cells, r) =>
    el(
      'tr',
      {},
      cells.map((c, i) => el('td', { class: cellClass(r, i) }, [c])),
    ),
  );
  return el('table', {}, [el('thead', {}, [head]), el('tbody', {}, body)]);
}

/** @param {unknown} data */
function blacklist(data) {
  const { sources } = /** @type {BlacklistRecord} */ (data);
  const listed = sources.filter((s) => s.listed).length;
  const summary =
    listed === 0
      ? `Not listed on any of ${sources.length} lists.`
      : `Listed on ${listed} of ${sources.length} lists.`;
  const rows = sources.map((s) => [
    s.name,
    s.error ?? (s.listed ? `listed${s.reason === null ? '' : `: ${s.reason}`}` : 'not listed'),
  ]);
  return [
    el('p', { class: 'verdict' }, [summary]),
    table(['List', 'Result'], rows, (r, c) => (c === 1 && sources[r]?.listed ? 'listed' : '')),
  ];
}

/** @param {unknown} data */
function dns(data) {
  const { records } = /** @type {DnsRecords} */ (data);
  if (records.length === 0) return [el('p', {}, ['No records of this type.'])];
  return [
    table(
      ['Name', 'TTL', 'Data'],
      records.map((r) => [r.name, String(r.ttl), r.data]),
    ),
  ];
}

/** @param {unknown} data */
function cidr(data) {
  const c = /** @type {CidrRecord} */ (data);
  return [
    dl([
      ['Range', c.cidr],
      ['Network', c.network],
      ['Broadcast', c.broadcast],
      ['Subnet mask', c.subnetMask],
      ['Wildcard mask', c.wildcardMask],
      ['First host', c.firstHost],
      ['Last host', c.lastHost],
      ['Addresses', c.totalHosts],
      ['Usable hosts', c.usableHosts],
    ]),
  ];
}

/** One renderer per lookup: the record and its X-Data-Attribution header → the panel's content. */
export const renderers = { geoip, vpn, whois, reverse, blacklist, dns, cidr };
