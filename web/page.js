// @ts-check
// The web page's script (served as is: no bundler, no build; typed by JSDoc
// and checked by `tsc -p web`). It takes over the lookup form: every lookup
// that applies to the query is asked from the JSON API of this same service,
// each answer shown in its own panel as it arrives, with its curl command;
// the URL follows the query (/?q=…) and the back button works. Without it the
// form still works: the server renders /?q=… (src/web/page-html.ts).
import {
  curlLine,
  errorBody,
  h,
  lookupsOf,
  markerOf,
  panel,
  renderers,
  withKey,
} from './render.js';

/** @typedef {import('./render.js').Lookup} Lookup */

/**
 * A node of the shared renderer (web/render.js) as DOM: text stays text.
 * @param {import('./render.js').Child} node
 * @returns {Node}
 */
function toDom(node) {
  if (typeof node === 'string') return document.createTextNode(node);
  const element = document.createElement(node.tag);
  for (const [name, value] of Object.entries(node.attrs)) element.setAttribute(name, value);
  element.append(...node.children.map(toDom));
  return element;
}

const form = /** @type {HTMLFormElement} */ (document.getElementById('lookup'));
const input = /** @type {HTMLInputElement} */ (document.getElementById('q'));
const results = /** @type {HTMLElement} */ (document.getElementById('results'));
const map = /** @type {SVGSVGElement & HTMLOrSVGElement} */ (
  /** @type {unknown} */ (document.getElementById('map'))
);
const marker = /** @type {SVGCircleElement} */ (
  /** @type {unknown} */ (document.getElementById('marker'))
);
const caption = /** @type {HTMLElement} */ (document.getElementById('map-caption'));
const scale = Number(map.dataset['scale'] ?? '4');
const callerMarker = {
  cx: marker.getAttribute('cx'),
  cy: marker.getAttribute('cy'),
  hidden: marker.getAttribute('visibility'),
  caption: caption.textContent,
};

// the API key the page was opened with (/?key=…): every API call, curl
// command and address of the page keeps it, as the server's links do
const apiKey = new URLSearchParams(location.search).get('key');
/** @param {string} path */
const keyed = (path) => withKey(path, apiKey);

/** @param {Lookup} l */
function newPanel(l) {
  const loading = h('p', { class: 'loading' }, ['Looking up…']);
  const curl = curlLine(location.origin, keyed(l.path));
  const section = /** @type {HTMLElement} */ (
    toDom(panel(l, [loading, curl], { 'aria-busy': 'true' }))
  );
  const body = /** @type {HTMLElement} */ (section.querySelector('.loading'));
  return { section, body };
}

/**
 * Asks the API; a refusal becomes an Error carrying the API's own message and code.
 * @param {string} path @param {AbortSignal} signal
 */
async function ask(path, signal) {
  const response = await fetch(keyed(path), { headers: { accept: 'application/json' }, signal });
  /** @type {{ data?: unknown, error?: { code?: string, message?: string } } | null} */
  const body = await response.json().then(
    (/** @type {unknown} */ json) => /** @type {typeof body} */ (json),
    () => null,
  );
  if (!response.ok || body === null || !('data' in body)) {
    const error = new Error(body?.error?.message ?? `HTTP ${response.status}`);
    error.name = body?.error?.code ?? 'HTTP_ERROR';
    throw error;
  }
  return { data: body.data, attribution: response.headers.get('x-data-attribution') };
}

/** @param {unknown} data the GeoIP record of the query */
function placeMarker(data) {
  const geo = /** @type {import('./api').GeoIpRecord} */ (data);
  const at = markerOf(geo, scale);
  if (at === null) {
    marker.setAttribute('visibility', 'hidden');
    caption.textContent = `No location for ${geo.ip}.`;
    return;
  }
  marker.setAttribute('cx', String(at.x));
  marker.setAttribute('cy', String(at.y));
  marker.removeAttribute('visibility');
  caption.textContent = at.caption;
}

function restoreCallerMarker() {
  marker.setAttribute('cx', callerMarker.cx ?? '0');
  marker.setAttribute('cy', callerMarker.cy ?? '0');
  if (callerMarker.hidden === null) marker.removeAttribute('visibility');
  else marker.setAttribute('visibility', callerMarker.hidden);
  caption.textContent = callerMarker.caption;
}

/** @type {AbortController | null} */
let running = null;

/**
 * Runs every lookup of `query` into fresh panels; lookups the server already
 * rendered for this query (`keep`) are left as they are.
 * @param {string} query @param {Set<string>} keep
 */
async function show(query, keep = new Set()) {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  const panels = /** @type {HTMLElement} */ (results.querySelector('.panels'));
  for (const old of [...panels.children])
    if (!keep.has(old.getAttribute('data-lookup') ?? '')) old.remove();
  results.querySelector('.note')?.remove();
  results.querySelector('h2')?.remove();
  if (query === '') return restoreCallerMarker();
  results.prepend(toDom(h('h2', { id: 'results-title' }, [`Lookups of ${query}`])));
  const lookups = lookupsOf(query).filter((l) => !keep.has(l.lookup));
  const run = async (/** @type {Lookup} */ l) => {
    const { section, body } = newPanel(l);
    panels.append(section);
    try {
      const answer = await ask(l.path, controller.signal);
      body.replaceWith(...renderers[l.render](answer.data, answer.attribution).map(toDom));
      if (l.render === 'geoip') placeMarker(answer.data);
    } catch (error) {
      if (controller.signal.aborted) return;
      body.replaceWith(toDom(errorBody(/** @type {Error} */ (error).message)));
      if (l.render === 'geoip') marker.setAttribute('visibility', 'hidden');
      throw error;
    } finally {
      section.removeAttribute('aria-busy');
    }
  };
  const [first, ...rest] = lookups;
  if (first === undefined) return;
  // a malformed address or domain, or one that does not exist, is refused
  // alike by every lookup: the first one says it, the others are not asked
  const go = await run(first).then(
    () => true,
    (/** @type {Error} */ e) => !/^(INVALID_IP|INVALID_DOMAIN|NXDOMAIN)$/.test(e.name),
  );
  if (!go || controller.signal.aborted) return;
  await Promise.allSettled(rest.map(run));
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const query = input.value.trim();
  if (query === '') return;
  history.pushState({ query }, '', keyed(`/?q=${encodeURIComponent(query)}`));
  document.title = `${query} — ipintel`;
  void show(query);
});

window.addEventListener('popstate', () => {
  const query = new URLSearchParams(location.search).get('q')?.trim() ?? '';
  input.value = query;
  document.title = query === '' ? 'ipintel: your IP address' : `${query} — ipintel`;
  void show(query);
});

// /?q=… opened directly: the server rendered what it answers from memory; ask the rest
const initial = new URLSearchParams(location.search).get('q')?.trim() ?? '';
if (initial !== '' && results.dataset['query'] === initial) {
  const rendered = [...results.querySelectorAll('.panel')].map(
    (p) => p.getAttribute('data-lookup') ?? '',
  );
  // a query the server found malformed needs no more asking
  if (results.querySelector('.panel .error') === null) void show(initial, new Set(rendered));
} else if (initial !== '') {
  void show(initial);
}
