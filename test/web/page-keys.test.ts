// The web page opened with ?key= in Chromium, against the service with API
// keys required: the script's lookups, the address it pushes and its curl
// commands keep the key, so nothing it asks is refused (401); without the
// key, the page itself is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startService, type TestService } from '../helpers/service.js';

const KEY = 'page-key-0123456789ab';
const dir = mkdtempSync(join(tmpdir(), 'ipintel-keys-'));
let browser: Browser;
let service: TestService;

before(async () => {
  const file = join(dir, 'keys.csv');
  writeFileSync(file, `name,key,limit\nbrowser,${KEY},1000\n`);
  [browser, service] = await Promise.all([
    launchBrowser(),
    // DNS-based panels fail fast against a closed port: they only must not be 401s
    startService({
      env: {
        API_KEYS_FILE: file,
        API_KEYS_REQUIRED: 'true',
        DNS_SERVERS: '127.0.0.1:9',
        DNS_TIMEOUT_MS: '200',
        WHOIS_SERVER: '127.0.0.1:9',
        RDAP_BASE_URL: 'http://127.0.0.1:9/',
      },
    }),
  ]);
});

after(async () => {
  await browser?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the page with an API key', () => {
  it('looks up with the key kept in every API call, the address bar and the curl commands', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const api: { url: string; status: number }[] = [];
    page.on('response', (response) => {
      const path = response.url().slice(service.baseUrl.length);
      if (/^\/(ip|dns|whois|blacklist|cidr)[/?]/.test(path)) {
        api.push({ url: path, status: response.status() });
      }
    });
    const first = await page.goto(`${service.baseUrl}/?key=${KEY}`);
    assert.equal(first?.status(), 200);
    await page.fill('#q', '8.8.8.8');
    await page.press('#q', 'Enter');
    await page.waitForURL(`**/?q=8.8.8.8&key=${KEY}`);
    const geo = page.locator('#results .panel[data-lookup="geoip"]:not([aria-busy])');
    await geo.waitFor();
    assert.match(await geo.innerText(), new RegExp(`curl '.*/ip/8\\.8\\.8\\.8\\?key=${KEY}'`));
    await page.locator('#results .panel[data-lookup="reverse"]:not([aria-busy])').waitFor();
    assert.ok(api.length >= 4, JSON.stringify(api));
    for (const call of api) {
      assert.ok(call.url.includes(`key=${KEY}`), call.url);
      assert.notEqual(call.status, 401, call.url);
    }
    await context.close();
  });

  it('without the key the page is refused (401, the JSON envelope)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${service.baseUrl}/`);
    assert.equal(response?.status(), 401);
    assert.match(await response?.text(), /"code":"UNAUTHORIZED"/);
    await context.close();
  });
});
