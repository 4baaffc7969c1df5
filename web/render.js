// @ts-check
// The lookups a query gets and their panels, one renderer for both sides: the
// server renders the first view's panels with it (src/web/panels-html.ts
// writes the nodes as HTML text) and the page's script the API's JSON
// (web/page.js makes them DOM nodes). A node is plain data, so this module
// needs no DOM and Node imports it as it is; text stays text on both sides:
// nothing the API or the query says becomes markup.

/**
 * @typedef {{ tag: string, attrs: Readonly<Record<string, string>>, children: readonly Child[] }} Element
 * @typedef {Element | string} Child
 * @typedef {{ text: string, url: string, licence: string }} Attribution
 * @typedef {import('./api.js').GeoIpRecord} GeoIpRecord
 * @typedef {import('./api.js').VpnRecord} VpnRecord
 * @typedef {import('./api.js').WhoisRecord} WhoisRecord
 * @typedef {import('./api.js').ReverseRecord} ReverseRecord
 * @typedef {import('./api.js').BlacklistRecord} BlacklistRecord
 * @typedef {import('./api.js').DnsRecords} DnsRecords
 * @typedef {import('./api.js').CidrRecord} CidrRecord
 */

/**
 * @param {string} tag
 * @param {Readonly<Record<string, string>>} attrs
 * @param {readonly Child[]} children
 * @returns {Element}
 */
export function h(tag, attrs = {}, children = []) {
  return { tag, attrs, children };
}

/**
 * A definition list ("—" for an unknown value).
 * @param {readonly (readonly [string, string | number | null])[]} rows
 */
export function dl(rows) {
  return h(
    'dl',
    {},
    rows.flatMap(([term, value]) => [
      h('dt', {}, [term]),
      h('dd', {}, [value === null ? '—' : String(value)]),
    ]),
  );
}

/** @param {string} message the API's own words */
export function errorBody(message) {
  return h('p', { class: 'error', role: 'alert' }, [message]);
}

/** @param {string[]} items */
const list = (items) =>
  h(
    'ul',
    {},
    items.map((item) => h('li', {}, [item])),
  );

/**
 * "IP geolocation by DB-IP (CC BY 4.0)" with the link the licence asks for:
 * DB-IP's licence asks for one wherever its data is shown.
 * @param {readonly Attribution[]} attributions
 * @returns {Child[]} nothing when there is none
 */
export function attributionLine(attributions) {
  if (attributions.length === 0) return [];
  const links = attributions.flatMap((a, i) => [
    ...(i > 0 ? [', '] : []),
    h('a', { href: a.url }, [a.text]),
    ` (${a.licence})`,
  ]);
  return [h('p', { class: 'attribution' }, links)];
}

/**
 * The X-Data-Attribution header (`text <url> (licence), …`) the API answers with.
 * @param {string | null} header
 * @returns {Attribution[]}
 */
export function parseAttribution(header) {
  if (header === null) return [];
  return [...header.matchAll(/\s*([^<,][^<]*?) <([^>]+)> \(([^)]+)\)/g)].map((m) => ({
    text: m[1] ?? '',
    url: m[2] ?? '',
    licence: m[3] ?? '',
  }));
}

/** @param {string} origin @param {string} path */
export function curlLine(origin, path) {
  return h('p', { class: 'curl' }, [h('code', {}, [`curl '${origin}${path}'`])]);
}

/**
 * One lookup's panel: its title, then its content (the result or the API's
 * message, its attribution, its curl command).
 * @param {{ lookup: string, title: string }} p
 * @param {readonly Child[]} content
 * @param {Readonly<Record<string, string>>} [attrs] more attributes of the section
 */
export function panel(p, content, attrs = {}) {
  return h('section', { class: 'panel', 'data-lookup': p.lookup, ...attrs }, [
    h('h3', {}, [p.title]),
    ...content,
  ]);
}

/** made at the first panel that names a country: ICU's region names cost ~20 ms of a start-up otherwise */
/** @type {Intl.DisplayNames | null} */
let regionNames = null;

/**
 * "United States (US)", or the code alone when ICU does not know it.
 * @param {string | null} code
 */
export function countryName(code) {
  if (code === null) return null;
  /** @type {string | undefined} */
  let name;
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
    name = regionNames.of(code);
  } catch {
    name = undefined;
  }
  return name === undefined || name === code ? code : `${name} (${code})`;
}

/** @param {{ asn: string | null, org: string | null }} r */
export function network(r) {
  if (r.asn === null) return r.org;
  return r.org === null ? r.asn : `${r.asn} ${r.org}`;
}

/**
 * A GeoIP record's content; a bogon is said to be one ("… is a `purpose` address").
 * @param {GeoIpRecord} geo
 * @param {string} purpose e.g. "loopback (RFC 1122)"
 */
export function geoContent(geo, purpose) {
  if (geo.bogon) {
    return [
      h('p', { class: 'bogon' }, [
        `${geo.ip} is a ${purpose} address: it has no public location or network.`,
      ]),
    ];
  }
  const coordinates =
    geo.latitude === null || geo.longitude === null ? null : `${geo.latitude}, ${geo.longitude}`;
  return [
    dl([
      ['Country', countryName(geo.country)],
      ['Region', geo.region],
      ['City', geo.city],
      ['Time zone', geo.timezone],
      ['Coordinates', coordinates],
      [
        'Accuracy',
        geo.accuracyRadiusKm === null ? null : `within ${geo.accuracyRadiusKm} km (about 2 in 3)`,
      ],
      ['Network', network(geo)],
    ]),
  ];
}

const FLAGS = /** @type {const} */ ([
  ['isVpn', 'VPN'],
  ['isProxy', 'proxy'],
  ['isTor', 'Tor exit'],
  ['isRelay', 'privacy relay'],
  ['isHosting', 'hosting'],
  ['isMobile', 'mobile network'],
]);

/**
 * "VPN, hosting (confidence high)" or "No VPN, proxy or hosting signal (confidence low)".
 * @param {VpnRecord} vpn
 */
export function verdict(vpn) {
  const flags = FLAGS.filter(([key]) => vpn[key]).map(([, label]) => label);
  const said = flags.length === 0 ? 'No VPN, proxy or hosting signal' : flags.join(', ');
  const service = vpn.provider === null ? '' : `: ${vpn.provider}`;
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}${service} (confidence ${vpn.confidence})`;
}

/** @param {VpnRecord} vpn */
export function vpnContent(vpn) {
  const reasons =
    vpn.reasons.length === 0
      ? [h('p', {}, ['Reasons: none'])]
      : [
          h('p', {}, ['Reasons:']),
          h(
            'ul',
            { class: 'reasons' },
            vpn.reasons.map((r) => h('li', {}, [h('code', {}, [r])])),
          ),
        ];
  return [h('p', { class: 'verdict' }, [verdict(vpn)]), ...reasons];
}

/** @param {WhoisRecord} w */
function whoisContent(w) {
  const events = w.events.map((e) => `${e.action}: ${e.date}`);
  return [
    dl([
      ['Network', w.name],
      ['Handle', w.handle],
      ['Range', w.startAddress === null ? null : `${w.startAddress} – ${w.endAddress ?? ''}`],
      ['CIDR', w.cidrs.length === 0 ? null : w.cidrs.join(', ')],
      ['Country', countryName(w.country)],
      ['Registrant', w.registrant],
      ['Type', w.type],
      ['Registry', `${w.registry ?? 'unknown'} (${w.source})`],
      ['Abuse contact', w.abuseEmail],
    ]),
    ...(events.length === 0 ? [] : [list(events)]),
  ];
}

/** @param {ReverseRecord} r */
function reverseContent(r) {
  // a PTR name is the reverse zone's word; a confirmed one its own zone's too
  return [
    r.hostnames.length === 0
      ? h('p', {}, [`No PTR record at ${r.ptr}.`])
      : list(
          r.hostnames.map(
            (name) =>
              `${name} — ${r.confirmedHostnames.includes(name) ? 'forward-confirmed' : 'not confirmed'}`,
          ),
        ),
  ];
}

/** @param {string[]} headings @param {string[][]} rows @param {(row: number, column: number) => string} [cellClass] */
function table(headings, rows, cellClass = () => '') {
  const head = h(
    'tr',
    {},
    headings.map((heading) => h('th', { scope: 'col' }, [heading])),
  );
  const body = rows.map((cells, r) =>
    h(
      'tr',
      {},
      cells.map((c, i) => h('td', { class: cellClass(r, i) }, [c])),
    ),
  );
  return h('table', {}, [h('thead', {}, [head]), h('tbody', {}, body)]);
}

/** @param {BlacklistRecord} record */
function blacklistContent({ sources }) {
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
    h('p', { class: 'verdict' }, [summary]),
    table(['List', 'Result'], rows, (r, c) => (c === 1 && sources[r]?.listed ? 'listed' : '')),
  ];
}

/** @param {DnsRecords} record */
function dnsContent({ records }) {
  if (records.length === 0) return [h('p', {}, ['No records of this type.'])];
  return [
    table(
      ['Name', 'TTL', 'Data'],
      records.map((r) => [r.name, String(r.ttl), r.data]),
    ),
  ];
}

/** @param {CidrRecord} c */
export function cidrContent(c) {
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

/**
 * The map position of a coordinate: plate carrée at `scale` map units per
 * degree, as the server draws the map (src/web/projection.ts, world-map.ts).
 * @param {number} longitude
 * @param {number} latitude
 * @param {number} scale
 */
export function project(longitude, latitude, scale) {
  return {
    x: Math.round((longitude + 180) * scale * 10) / 10,
    y: Math.round((90 - latitude) * scale * 10) / 10,
  };
}

/**
 * Where the map's marker goes for a GeoIP record, with its caption; null without coordinates.
 * @param {GeoIpRecord} geo
 * @param {number} scale map units per degree
 */
export function markerOf(geo, scale) {
  if (geo.latitude === null || geo.longitude === null) return null;
  const place = [geo.city, geo.country].filter((p) => p !== null).join(', ');
  const caption = `Marker: ${geo.ip}${place === '' ? '' : ` — ${place}`} (${geo.latitude}, ${geo.longitude})`;
  return { ...project(geo.longitude, geo.latitude, scale), caption };
}

/** what the page says of a bogon it asked the API about (the API does not name its range) */
const SPECIAL_PURPOSE = 'private, loopback or other special-purpose';

/**
 * One renderer per lookup of the page's script: the API's record and its
 * X-Data-Attribution header → the panel's content.
 * @type {Record<'geoip' | 'vpn' | 'whois' | 'reverse' | 'blacklist' | 'dns' | 'cidr', (data: unknown, header: string | null) => Child[]>}
 */
export const renderers = {
  geoip: (data, header) => {
    const geo = /** @type {GeoIpRecord} */ (data);
    // a bogon has no data of DB-IP's to credit
    const credit = geo.bogon ? [] : attributionLine(parseAttribution(header));
    return [...geoContent(geo, SPECIAL_PURPOSE), ...credit];
  },
  vpn: (data, header) => [
    ...vpnContent(/** @type {VpnRecord} */ (data)),
    ...attributionLine(parseAttribution(header)),
  ],
  whois: (data) => whoisContent(/** @type {WhoisRecord} */ (data)),
  reverse: (data) => reverseContent(/** @type {ReverseRecord} */ (data)),
  blacklist: (data) => blacklistContent(/** @type {BlacklistRecord} */ (data)),
  dns: (data) => dnsContent(/** @type {DnsRecords} */ (data)),
  cidr: (data) => cidrContent(/** @type {CidrRecord} */ (data)),
};

/**
 * A link of the page with the caller's API key kept on (`?key=`): a page
 * opened as /?key=… asks the API, and shows curl commands, with that key.
 * @param {string} path
 * @param {string | null} key null (or empty): none
 */
export function withKey(path, key) {
  if (key === null || key === '') return path;
  return `${path}${path.includes('?') ? '&' : '?'}key=${encodeURIComponent(key)}`;
}

/**
 * What a query is taken for: a range when it has a "/", an address when it
 * has a ":" or only digits and dots, a domain otherwise.
 * @param {string} query
 * @returns {'ip' | 'cidr' | 'domain'}
 */
export function queryKind(query) {
  if (query.includes('/')) return 'cidr';
  if (query.includes(':') || /^[\d.]+$/.test(query)) return 'ip';
  return 'domain';
}

/**
 * A path segment as the page writes it in URLs and curl commands (":" of IPv6 kept readable).
 * @param {string} text
 */
export const segment = (text) => encodeURIComponent(text).replace(/%3A/gi, ':');

/**
 * @typedef {{ lookup: string, title: string, path: string, render: keyof typeof renderers }} Lookup
 */

/**
 * Every lookup that applies to a query: its panel's name and title, its API
 * path and its renderer. The server renders the in-memory ones of these for
 * /?q=; the script asks the API for the rest.
 * @param {string} query
 * @returns {Lookup[]}
 */
export function lookupsOf(query) {
  const kind = queryKind(query);
  if (kind === 'cidr')
    return [
      {
        lookup: 'cidr',
        title: 'CIDR range',
        path: `/cidr?range=${encodeURIComponent(query)}`,
        render: 'cidr',
      },
    ];
  if (kind === 'domain') {
    return ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME'].map((type) => ({
      lookup: `dns-${type}`,
      title: `DNS ${type} records`,
      path: `/dns/${segment(query)}?type=${type}`,
      render: 'dns',
    }));
  }
  const ip = `/${segment(query)}`;
  /** @type {Lookup[]} */
  const list = [
    { lookup: 'geoip', title: 'Location and network', path: `/ip${ip}`, render: 'geoip' },
    { lookup: 'vpn', title: 'VPN, proxy or hosting', path: `/ip${ip}/vpn`, render: 'vpn' },
    { lookup: 'whois', title: 'Registry (RDAP/whois)', path: `/whois${ip}`, render: 'whois' },
    { lookup: 'reverse', title: 'Reverse DNS', path: `/dns${ip}/reverse`, render: 'reverse' },
  ];
  // DNSBLs list IPv4 addresses only
  if (!query.includes(':'))
    list.push({
      lookup: 'blacklist',
      title: 'Blacklists (DNSBL)',
      path: `/blacklist${ip}`,
      render: 'blacklist',
    });
  return list;
}
