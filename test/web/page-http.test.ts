// GET / by content negotiation and the page's assets, over HTTP in process:
// API clients keep the JSON byte for byte, browsers get the page; assets are
// content-named, immutable and precompressed; hostile input stays text.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startService, type TestService } from '../helpers/service.js';

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request with exactly these headers (Host included), the body as sent. */
function send(
  service: TestService,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: service.port, path, method, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const CHROME_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let service: TestService;
before(async () => {
  service = await startService({ env: { RATE_LIMIT_MAX: '100000' } });
});
after(() => service.close());

describe('GET / by content negotiation', () => {
  it('API clients get the same JSON bytes, browsers the page; Vary: Accept on both', async () => {
    const cases: { accept?: string; want: 'json' | 'html' }[] = [
      { want: 'json' }, // no Accept at all
      { accept: '*/*', want: 'json' }, // curl
      { accept: 'application/json', want: 'json' },
      { accept: 'text/*', want: 'json' }, // not text/html by name
      { accept: 'text/plain', want: 'json' }, // nothing offered fits: JSON all the same
      { accept: 'text/html;q=0.5, application/json', want: 'json' },
      { accept: 'text/html;q=0', want: 'json' },
      { accept: CHROME_ACCEPT, want: 'html' },
      { accept: 'application/json;q=0.5, text/html', want: 'html' },
      // Firefox
      { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', want: 'html' },
    ];
    const jsonBodies = new Set<string>();
    for (const c of cases) {
      const reply = await send(service, '/', c.accept === undefined ? {} : { accept: c.accept });
      const label = c.accept ?? '(none)';
      assert.equal(reply.status, 200, label);
      assert.match(String(reply.headers['vary']), /^Accept\b/, label);
      if (c.want === 'json') {
        assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8', label);
        assert.equal(reply.headers['content-security-policy'], undefined, label);
        jsonBodies.add(reply.body.toString('utf8'));
      } else {
        assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8', label);
        assert.match(String(reply.headers['content-security-policy']), /^default-src 'self';/);
        assert.match(reply.body.toString('utf8'), /^<!doctype html>/);
      }
    }
    assert.equal(jsonBodies.size, 1);
    const [json] = [...jsonBodies];
    // the handler's record serialised as every data route does it
    const parsed = JSON.parse(json!) as { data: { name: string; endpoints: { path: string }[] } };
    assert.equal(json, `{"data":${JSON.stringify(parsed.data)}}`);
    assert.equal(parsed.data.name, 'ipintel');
    // the page's files are not API endpoints
    assert.ok(parsed.data.endpoints.every((e) => !e.path.startsWith('/assets/')));
    const head = await send(service, '/', { accept: CHROME_ACCEPT }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
  });

  it('the page is compressed for a client that accepts it', async () => {
    const plain = await send(service, '/', { accept: CHROME_ACCEPT });
    const br = await send(service, '/', { accept: CHROME_ACCEPT, 'accept-encoding': 'gzip, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.body).toString(), plain.body.toString());
    const gz = await send(service, '/', { accept: CHROME_ACCEPT, 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.body).toString(), plain.body.toString());
    assert.equal(plain.headers['content-encoding'], undefined);
  });

  it('a hostile query and Host header stay text', async () => {
    const reply = await send(service, '/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22%27', {
      accept: CHROME_ACCEPT,
      host: '"><img src=x onerror=alert(2)>',
    });
    const html = reply.body.toString('utf8');
    assert.equal(reply.status, 200);
    assert.ok(!html.includes('<script>alert'), 'query escaped');
    assert.ok(!html.includes('<img src=x'), 'Host escaped');
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;'));
    assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'));
  });

  it('the server renders the in-memory lookups of /?q= (GeoIP, VPN, CIDR) and the API’s messages', async () => {
    const cases = [
      {
        q: '8.8.8.8',
        want: [
          /Mountain View/,
          /AS15169 Google LLC/,
          /confidence/,
          /cx="231.7"/,
          // the data sets' attribution, as the API's X-Data-Attribution header states it
          /<a href="https:\/\/db-ip\.com">IP Geolocation by DB-IP<\/a> \(CC BY 4\.0\)/,
        ],
      },
      { q: '192.168.1.1', want: [/192\.168\.1\.1 is a private-use \(RFC 1918\) address/] },
      { q: '10.0.0.0/8', want: [/<dt>Usable hosts<\/dt><dd>16777214<\/dd>/] },
      { q: '8.8.8', want: [/&quot;8\.8\.8&quot; is not an IPv4 or IPv6 address\./] },
      { q: '10.0.0.0/33', want: [/class="error"/] },
      { q: 'example.com', want: [/DNS records of example\.com: lookups that ask other servers/] },
    ];
    for (const { q, want } of cases) {
      const html = (
        await send(service, `/?q=${encodeURIComponent(q)}`, { accept: CHROME_ACCEPT })
      ).body.toString();
      for (const pattern of want) assert.match(html, pattern, q);
    }
    // a malformed address: one panel with the API's message, not one per lookup
    const malformed = await send(service, '/?q=8.8.8', { accept: CHROME_ACCEPT });
    assert.equal(malformed.body.toString().split('class="error"').length - 1, 1);
  });
});

describe('the page’s assets', () => {
  it('content-named, immutable, brotli or gzip by Accept-Encoding; unknown names 404', async () => {
    const html = (await send(service, '/', { accept: CHROME_ACCEPT })).body.toString();
    const urls = [...html.matchAll(/"(\/assets\/[^"#]+)/g)].map((m) => m[1]!);
    assert.deepEqual(urls.map((u) => u.replace(/\.[0-9a-f]{12}\./, '.*.')).sort(), [
      '/assets/icon.*.svg',
      '/assets/page.*.css',
      '/assets/page.*.js',
      '/assets/world.*.svg',
    ]);
    const gzipped = await send(service, '/', { accept: CHROME_ACCEPT, 'accept-encoding': 'gzip' });
    let weight = gzipped.body.length;
    for (const url of urls) {
      const plain = await send(service, url);
      assert.equal(plain.status, 200, url);
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['vary'], 'Accept-Encoding');
      assert.equal(plain.headers['content-encoding'], undefined);
      // the name carries the hash of the content
      const hash = createHash('sha256').update(plain.body).digest('hex').slice(0, 12);
      assert.ok(url.includes(`.${hash}.`), url);
      const br = await send(service, url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      const gz = await send(service, url, { 'accept-encoding': 'gzip' });
      assert.deepEqual(gunzipSync(gz.body), plain.body);
      weight += gz.body.length;
    }
    // the script's import names its module by hash too
    const script = (
      await send(
        service,
        urls.find((u) => u.includes('/page.') && u.endsWith('.js'))!,
      )
    ).body.toString();
    const imported = /from '\.\/(render\.[0-9a-f]{12}\.js)'/.exec(script)?.[1];
    assert.ok(imported !== undefined, 'page.js imports render.<hash>.js');
    const module = await send(service, `/assets/${imported}`, { 'accept-encoding': 'gzip' });
    assert.equal(module.status, 200);
    weight += module.body.length;
    // the budget for HTML + JS + CSS + map data, compressed (README: ~23 KB)
    assert.ok(weight < 300_000, `${weight} bytes gzipped`);
    const missing = await send(service, '/assets/page.000000000000.js');
    assert.equal(missing.status, 404);
    assert.match(missing.body.toString(), /"code":"NOT_FOUND"/);
  });
});

describe('the rate limit', () => {
  it('counts the page like any request; the immutable assets are not counted', async () => {
    const limited = await startService({ env: { RATE_LIMIT_MAX: '2' } });
    try {
      const page = await send(limited, '/', { accept: CHROME_ACCEPT });
      assert.equal(page.headers['ratelimit-remaining'], '1');
      const asset = /"(\/assets\/page\.[0-9a-f]{12}\.css)"/.exec(page.body.toString())![1]!;
      for (let i = 0; i < 3; i++) {
        const reply = await send(limited, asset);
        assert.equal(reply.status, 200);
        assert.equal(reply.headers['ratelimit-remaining'], undefined);
      }
      assert.equal((await send(limited, '/ip/8.8.8.8')).status, 200);
      const refused = await send(limited, '/', { accept: CHROME_ACCEPT });
      assert.equal(refused.status, 429);
    } finally {
      await limited.close();
    }
  });
});
