// The web page in a real headless Chromium against the real service on
// loopback: every upstream (DNS, DNSBL, RDAP, whois) is a loopback server, and
// the test fails if the page asks anything of another origin or logs an error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.js';
import { startRdapServer, type RdapServer } from '../helpers/rdap-server.js';
import { get, startService, type TestService } from '../helpers/service.js';

let browser: Browser;
let service: TestService;
let dns: DnsTestServer;
let rdap: RdapServer;
/** every request any page made, and every console error or uncaught exception */
const requests: string[] = [];
const problems: string[] = [];

before(async () => {
  [dns, rdap] = await Promise.all([
    startDnsServer({
      'example.test': {
        records: [
          { type: 'A', data: '192.0.2.10' },
          { type: 'MX', data: { preference: 10, exchange: 'mail.example.test' } },
          { type: 'TXT', data: ['v=spf1 -all'] },
        ],
      },
      '8.8.8.8.in-addr.arpa': { records: [{ type: 'PTR', data: 'dns.google' }] },
      '8.8.8.8.bl.test': { records: [{ type: 'A', data: '127.0.0.2' }] },
    }),
    startRdapServer(),
  ]);
  [browser, service] = await Promise.all([
    launchBrowser(),
    startService({
      env: {
        RATE_LIMIT_MAX: '100000',
        DNS_SERVERS: `127.0.0.1:${dns.port}`,
        DNSBL_ZONES: 'bl.test,clean.test',
        RDAP_BASE_URL: rdap.url,
        WHOIS_SERVER: '127.0.0.1:9',
        DNS_TIMEOUT_MS: '500',
      },
    }),
  ]);
});

after(async () => {
  await browser?.close();
  await Promise.all([service?.close(), dns?.close(), rdap?.close()]);
});

async function open(
  options: { javaScriptEnabled?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ...options, viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const url = message.location().url;
    // Chromium logs every 4xx/5xx fetch; an API refusal the page shows as its
    // message is expected (checked per panel), anything else is a problem
    const refused = /^Failed to load resource: the server responded with a status of 4\d\d/;
    if (refused.test(message.text()) && isApiLookup(url)) return;
    problems.push(`console: ${message.text()} (${url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page };
}

interface MarkerCheck {
  us: boolean;
  hidden: string | null;
  atlantic: boolean;
}

/**
 * Run in the page (plain JavaScript: the test's types know no DOM): the
 * drawn map's United States path (id n840, from the map asset the page
 * uses) is put into the page's map SVG, in the marker's coordinates, and
 * asked whether the marker's centre lies in its fill; a point in the
 * Atlantic must not, or the check could not fail.
 */
const MARKER_IN_US = `(async () => {
  const marker = document.querySelector('#marker');
  const href = document.querySelector('#map use').getAttribute('href');
  const text = await (await fetch(href.split('#')[0])).text();
  const drawn = new DOMParser().parseFromString(text, 'image/svg+xml');
  const us = document.importNode(drawn.getElementById('n840'), true);
  us.setAttribute('visibility', 'hidden');
  document.querySelector('#map').append(us);
  const at = (x, y) => us.isPointInFill(new DOMPoint(x, y));
  const result = {
    us: at(Number(marker.getAttribute('cx')), Number(marker.getAttribute('cy'))),
    hidden: marker.getAttribute('visibility'),
    atlantic: at((-40 + 180) * 4, (90 - 30) * 4),
  };
  us.remove();
  return result;
})()`;

/** A lookup of the JSON API (not the page, not its assets). */
function isApiLookup(url: string): boolean {
  const path = url.slice(service.baseUrl.length);
  return url.startsWith(`${service.baseUrl}/`) && /^\/(ip|dns|whois|blacklist|cidr)[/?]/.test(path);
}

/** The text of one lookup's panel in the results, once it has an answer. */
async function panelText(page: Page, lookup: string): Promise<string> {
  const panel = page.locator(`#results .panel[data-lookup="${lookup}"]:not([aria-busy])`);
  await panel.waitFor();
  return panel.innerText();
}

async function lookUp(page: Page, query: string): Promise<void> {
  await page.fill('#q', query);
  await page.press('#q', 'Enter');
  await page.waitForURL(`**/?q=${encodeURIComponent(query)}`);
}

describe('the web page in Chromium', () => {
  it('first view without JavaScript: the caller, said plainly to be loopback', async () => {
    const { context, page } = await open({ javaScriptEnabled: false });
    const response = await page.goto(`${service.baseUrl}/`);
    assert.equal(
      response?.headers()['content-security-policy']?.startsWith("default-src 'self'"),
      true,
    );
    assert.equal(await page.textContent('#caller-ip'), '127.0.0.1');
    const you = await page.innerText('#you');
    assert.match(you, /127\.0\.0\.1 is a loopback \(RFC 1122\) address/);
    assert.match(you, /curl 'http:\/\/127\.0\.0\.1:\d+\/ip'/);
    // the form works without script: the server renders the GeoIP of /?q=
    await page.fill('#q', '8.8.8.8');
    await page.press('#q', 'Enter');
    await page.waitForURL('**/?q=8.8.8.8');
    const geo = await page.innerText('#results .panel[data-lookup="geoip"]');
    assert.match(geo, /Mountain View/);
    assert.match(geo, /AS15169/);
    assert.match(geo, /IP Geolocation by DB-IP/);
    assert.match(await page.innerText('#results .panel[data-lookup="vpn"]'), /Hosting/);
    await context.close();
  });

  it('8.8.8.8 + Enter: every lookup in its own panel, the marker inside the United States', async () => {
    const { context, page } = await open();
    await page.goto(`${service.baseUrl}/`);
    await lookUp(page, '8.8.8.8');
    const geo = await panelText(page, 'geoip');
    assert.match(geo, /Mountain View/);
    assert.match(geo, /AS15169 Google LLC/);
    assert.match(geo, /IP Geolocation by DB-IP/);
    assert.match(geo, /curl 'http:\/\/127\.0\.0\.1:\d+\/ip\/8\.8\.8\.8'/);
    const vpn = await panelText(page, 'vpn');
    assert.match(vpn, /Hosting \(confidence (high|medium|low)\)/);
    assert.match(vpn, /Reasons:/);
    assert.match(await panelText(page, 'reverse'), /dns\.google/);
    const blacklist = await panelText(page, 'blacklist');
    assert.match(blacklist, /Listed on 1 of 2 lists/);
    // no RDAP record for 8.8.8.8 on the loopback registry: the API's own message
    const whoisApi = await get(service.baseUrl, '/whois/8.8.8.8');
    const whoisMessage = (whoisApi.body as { error: { message: string } }).error.message;
    assert.ok((await panelText(page, 'whois')).includes(whoisMessage));

    const inside = await page.evaluate<MarkerCheck>(MARKER_IN_US);
    assert.deepEqual(inside, { us: true, hidden: null, atlantic: false });
    assert.match(await page.innerText('#map-caption'), /Mountain View, US/);
    // PAGE_SCREENSHOT=docs/page.png refreshes the README's picture
    const screenshot = process.env['PAGE_SCREENSHOT'];
    if (screenshot !== undefined) await page.screenshot({ path: screenshot, fullPage: true });
    await context.close();
  });

  it('a domain shows its DNS records from the DNS server, by type', async () => {
    const { context, page } = await open();
    await page.goto(`${service.baseUrl}/`);
    await lookUp(page, 'example.test');
    assert.match(await panelText(page, 'dns-A'), /example\.test\s+\d+\s+192\.0\.2\.10/);
    assert.match(await panelText(page, 'dns-MX'), /10 mail\.example\.test\./);
    assert.match(await panelText(page, 'dns-TXT'), /v=spf1 -all/);
    assert.match(await panelText(page, 'dns-AAAA'), /No records of this type/);
    assert.match(
      await panelText(page, 'dns-CNAME'),
      /curl 'http:\/\/127\.0\.0\.1:\d+\/dns\/example\.test\?type=CNAME'/,
    );
    await context.close();
  });

  it('an invalid query shows the API’s message; back and forward follow the queries', async () => {
    const { context, page } = await open();
    await page.goto(`${service.baseUrl}/?q=10.0.0.0/8`);
    assert.match(await panelText(page, 'cidr'), /Usable hosts\s+16777214/);
    await lookUp(page, '8.8.8');
    const api = await get(service.baseUrl, '/ip/8.8.8');
    const message = (api.body as { error: { message: string } }).error.message;
    assert.match(message, /not an IPv4 or IPv6 address/);
    assert.ok((await panelText(page, 'geoip')).includes(message));
    // one panel for a malformed address, not five saying the same
    assert.equal(await page.locator('#results .panel').count(), 1);
    await lookUp(page, 'bad_domain!');
    const dnsApi = await get(service.baseUrl, '/dns/bad_domain!?type=A');
    const dnsMessage = (dnsApi.body as { error: { message: string } }).error.message;
    assert.ok((await panelText(page, 'dns-A')).includes(dnsMessage));
    // one panel for a domain that cannot exist, not six saying the same
    assert.equal(await page.locator('#results .panel').count(), 1);
    await page.goBack();
    await page.waitForURL('**/?q=8.8.8');
    assert.equal(await page.inputValue('#q'), '8.8.8');
    assert.ok((await panelText(page, 'geoip')).includes(message));
    await page.goBack();
    await page.waitForURL(/\?q=10\.0\.0\.0(%2F|\/)8$/);
    assert.match(await panelText(page, 'cidr'), /Usable hosts\s+16777214/);
    await page.goForward();
    await page.waitForURL('**/?q=8.8.8');
    assert.ok((await panelText(page, 'geoip')).includes(message));
    await context.close();
  });

  it('the panels the server renders are the very markup the script renders from the JSON', async () => {
    // one renderer (web/render.js) serves both: the server writes its nodes
    // as HTML text, the script as DOM; the same answers must read alike
    const cases = [
      { query: '8.8.8.8', lookups: ['geoip', 'vpn'] },
      { query: '2001:4860:4860::8888', lookups: ['geoip', 'vpn'] },
      { query: '10.0.0.0/8', lookups: ['cidr'] },
      { query: '10.0.0.0/33', lookups: ['cidr'] },
      { query: '8.8.8', lookups: ['geoip'] },
      // a bogon's GeoIP differs on purpose: the server names its range, the API does not
      { query: '127.0.0.1', lookups: ['vpn'] },
    ];
    const server = await open({ javaScriptEnabled: false });
    const script = await open();
    await script.page.goto(`${service.baseUrl}/`);
    for (const { query, lookups } of cases) {
      await server.page.goto(`${service.baseUrl}/?q=${encodeURIComponent(query)}`);
      await lookUp(script.page, query);
      for (const lookup of lookups) {
        await panelText(script.page, lookup);
        const selector = `#results .panel[data-lookup="${lookup}"]`;
        // plain JavaScript run in the page: the test's types know no DOM
        const markup = `document.querySelector(${JSON.stringify(selector)})?.outerHTML ?? ''`;
        const rendered = await script.page.evaluate<string>(markup);
        const served = await server.page.evaluate<string>(markup);
        assert.match(served, /<dl>|class="error"|class="verdict"/, `${query} ${lookup}`);
        assert.equal(rendered, served, `${query} ${lookup}`);
      }
    }
    await Promise.all([server.context.close(), script.context.close()]);
  });

  it('at phone width, dark, keyboard only: the labelled box is reached by Tab, nothing overflows', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    const page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${service.baseUrl}/`);
    // the box is found by its label, as a screen reader announces it
    const box = page.getByLabel('Look up an IP address, a domain or a CIDR range');
    assert.equal(await box.getAttribute('id'), 'q');
    let tabs = 0;
    while ((await page.evaluate('document.activeElement?.id')) !== 'q') {
      assert.ok(++tabs <= 5, 'the lookup box is among the first five stops');
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('1.1.1.1');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/?q=1.1.1.1');
    await panelText(page, 'geoip');
    await panelText(page, 'blacklist');
    const layout = await page.evaluate(
      `({ overflow: document.documentElement.scrollWidth - innerWidth,
          background: getComputedStyle(document.body).backgroundColor })`,
    );
    assert.deepEqual(layout, { overflow: 0, background: 'rgb(13, 17, 23)' });
    await context.close();
  });

  it('no console errors, and no request to any other origin', () => {
    assert.deepEqual(problems, []);
    assert.ok(requests.length > 20, `${requests.length} requests`);
    const foreign = requests.filter((url) => !url.startsWith(`${service.baseUrl}/`));
    assert.deepEqual(foreign, []);
  });
});
