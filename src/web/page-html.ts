// The HTML of the web page at GET / (browsers): the caller's address, GeoIP
// and VPN verdict rendered here, so the first view needs no script; a lookup
// form that works without script too (GET /?q=…); the offline map; and where
// to go next (OpenAPI, MCP). web/page.js takes over the form when it runs.
import { attributionLine, markerOf } from '../../web/render.js';
import { escape, toHtml, withKey } from './html.js';
import {
  geoBody,
  panel,
  vpnContent,
  type GeoIpRecord,
  type PanelHtml,
  type VpnRecord,
} from './panels-html.js';
import type { Attribution } from './html.js';
import { MAP_SCALE, MAP_VIEW_BOX } from './projection.js';

export interface PageAssets {
  css: string;
  js: string;
  map: string;
  icon: string;
}

export interface CallerView {
  geo: GeoIpRecord;
  vpn: VpnRecord;
  /** the special-purpose range of a bogon caller, e.g. "loopback (RFC 1122)" */
  bogonPurpose: string | null;
  geoAttributions: readonly Attribution[];
  vpnAttributions: readonly Attribution[];
}

export interface PageView {
  /** scheme://host of this request, for the curl commands */
  origin: string;
  /** the API key the page was opened with (?key=), kept in its links; null: none */
  key: string | null;
  assets: PageAssets;
  caller: CallerView;
  /** the `q` of /?q=…, '' when none */
  query: string;
  /** the query's panels rendered here (in-memory lookups); others are left to the script */
  panels: readonly PanelHtml[];
  /** a note under the panels, e.g. that DNS lookups need the script */
  note: string | null;
  /** the current data's attribution (DB-IP's CC BY 4.0 link), for the footer */
  attributions: readonly Attribution[];
  /** the record whose coordinates the marker shows */
  located: GeoIpRecord | null;
}

function marker(located: GeoIpRecord | null): { attrs: string; caption: string } {
  const at = located === null ? null : markerOf(located, MAP_SCALE);
  if (at === null) {
    return {
      attrs: 'cx="0" cy="0" class="marker" visibility="hidden"',
      caption: 'No location to show.',
    };
  }
  return { attrs: `cx="${at.x}" cy="${at.y}" class="marker"`, caption: at.caption };
}

function callerSection(view: PageView): string {
  const { geo, vpn, bogonPurpose } = view.caller;
  const panels = [
    panel(
      {
        lookup: 'geoip',
        title: 'Location and network',
        body: geoBody(geo, bogonPurpose),
        path: '/ip',
        attributions: view.caller.geoAttributions,
      },
      view.origin,
      view.key,
    ),
  ];
  if (!geo.bogon) {
    panels.push(
      panel(
        {
          lookup: 'vpn',
          title: 'VPN, proxy or hosting',
          body: vpnContent(vpn),
          path: `/ip/${encodeURIComponent(geo.ip)}/vpn`,
          attributions: view.caller.vpnAttributions,
        },
        view.origin,
        view.key,
      ),
    );
  }
  return `<section id="you" aria-labelledby="you-title"><h2 id="you-title">Your IP address</h2><p class="address" id="caller-ip">${escape(geo.ip)}</p><div class="panels">${panels.join('')}</div></section>`;
}

function lookupForm(query: string, key: string | null): string {
  const keyField = key === null ? '' : `<input type="hidden" name="key" value="${escape(key)}">`;
  return `<form id="lookup" action="/" method="get" role="search">${keyField}<label for="q">Look up an IP address, a domain or a CIDR range</label><div class="row"><input id="q" name="q" type="search" value="${escape(query)}" placeholder="8.8.8.8, example.com, 10.0.0.0/8" autocomplete="off" autocapitalize="off" spellcheck="false" required maxlength="253"><button type="submit">Look up</button></div></form>`;
}

function mapFigure(view: PageView): string {
  const m = marker(view.located);
  return `<figure class="map"><svg id="map" viewBox="${MAP_VIEW_BOX}" data-scale="${MAP_SCALE}" role="img" aria-labelledby="map-caption"><use href="${escape(view.assets.map)}#land"/><circle id="marker" r="9" ${m.attrs}/></svg><figcaption><span id="map-caption">${escape(m.caption)}</span> <span class="credit">Map: <a href="https://www.naturalearthdata.com/">Natural Earth</a> (public domain), drawn by this service.</span></figcaption></figure>`;
}

function results(view: PageView): string {
  const panels = view.panels.map((p) => panel(p, view.origin, view.key)).join('');
  const note = view.note === null ? '' : `<p class="note">${escape(view.note)}</p>`;
  const heading =
    view.query === '' ? '' : `<h2 id="results-title">Lookups of ${escape(view.query)}</h2>`;
  return `<section id="results" aria-live="polite" data-query="${escape(view.query)}">${heading}<div class="panels">${panels}</div>${note}</section>`;
}

function usage(origin: string, key: string | null): string {
  const mcp = escape(JSON.stringify({ mcpServers: { ipintel: { url: `${origin}/mcp` } } }));
  return `<section id="use" aria-labelledby="use-title"><h2 id="use-title">Use it from code</h2><p>Every panel shows its <code>curl</code> command. The whole JSON API is described by <a href="${escape(withKey('/openapi.json', key))}">the OpenAPI document</a>; the rate limit counts this page's lookups like any client's.</p><h3 id="ranges">Lists for firewalls</h3><p>The addresses of a country, a network or a kind as a firewall loads them: <a href="${escape(withKey('/ranges?country=RU&format=nftables', key))}"><code>/ranges?country=RU&amp;format=nftables</code></a> (also <code>ipset</code>, <code>nginx</code>, <code>iptables</code>, <code>json</code>; filters <code>asn</code>, <code>kind</code>, <code>provider</code>, <code>family</code>), and what a network is: <a href="${escape(withKey('/asn/AS14061', key))}"><code>/asn/AS14061</code></a>. See docs/ranges.md.</p><h3 id="mcp">AI assistants (MCP)</h3><p>The Model Context Protocol endpoint is <code>${escape(origin)}/mcp</code> (Streamable HTTP). A client configuration:</p><pre><code>${mcp}</code></pre><p>Desktop clients that start a local process use <code>npm run mcp</code> (stdio): see docs/mcp.md.</p></section>`;
}

export function renderPage(view: PageView): string {
  const { assets } = view;
  const title = view.query === '' ? 'ipintel: your IP address' : `${view.query} — ipintel`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${escape(title)}</title><link rel="icon" href="${escape(assets.icon)}" type="image/svg+xml"><link rel="stylesheet" href="${escape(assets.css)}"><script type="module" src="${escape(assets.js)}"></script></head>
<body><header><h1><a href="${escape(withKey('/', view.key))}">ipintel</a></h1><nav aria-label="Documentation"><a href="${escape(withKey('/openapi.json', view.key))}">API (OpenAPI)</a> <a href="#mcp">MCP</a></nav></header>
<main>${callerSection(view)}${lookupForm(view.query, view.key)}${mapFigure(view)}${results(view)}${usage(view.origin, view.key)}</main>
<footer>${toHtml(attributionLine(view.attributions))}<p>Served by your own ipintel: nothing on this page comes from anywhere else.</p></footer>
</body></html>
`;
}
