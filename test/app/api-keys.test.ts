// API keys through the service over loopback HTTP (docs/security.md): a key's
// own limit, exact; two keys and the anonymous limit independent; a wrong key
// 401 in both modes; required mode (401 with the envelope and
// WWW-Authenticate; health and assets still open); sha256: keys; the same
// keys for /mcp, POST /batch and the page; a reload and a refused bad file;
// /metrics with and without METRICS_TOKEN; the OpenAPI security schemes.
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ApiKeySource } from '../../src/auth/api-key-source.js';
import { ApiKeysFileError } from '../../src/auth/api-keys.js';
import { dataOf, errorCode, get, startService, type TestService } from '../helpers/service.js';

const ALICE = 'alice-key-0123456789';
const BOB = 'bob-key-abcdefghijkl';
/** only its digest is in the file */
const HASHED = 'hashed-key-zyxwvutsrq';
const METRICS_TOKEN = 'metrics-token-0123456789';

const dir = mkdtempSync(join(tmpdir(), 'ipintel-keys-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function keysFile(text: string): string {
  const file = join(dir, `keys-${files++}.csv`);
  writeFileSync(file, text);
  return file;
}
const KEYS = `name,key,limit\nalice,${ALICE},3\nbob,${BOB},4\nhashed,sha256:${hash('sha256', HASHED)},\n`;

async function withService(
  env: Record<string, string>,
  run: (s: TestService) => Promise<void>,
  apiKeys?: ApiKeySource,
): Promise<void> {
  const service = await startService({
    env: { RATE_LIMIT_MAX: '5', ...env },
    ...(apiKeys === undefined ? {} : { overrides: { apiKeys } }),
  });
  try {
    await run(service);
  } finally {
    await service.close();
  }
}

const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

/** `n` requests in parallel: their statuses in order, and the last RateLimit-Limit seen. */
async function burst(base: string, n: number, path: string, init: RequestInit = {}) {
  const replies = await Promise.all(Array.from({ length: n }, () => get(base, path, init)));
  return {
    ok: replies.filter((r) => r.status === 200).length,
    limited: replies.filter((r) => r.status === 429).length,
    limits: new Set(replies.map((r) => r.headers.get('ratelimit-limit'))),
  };
}

describe('API keys, optional (API_KEYS_REQUIRED unset)', () => {
  it('a key has its own limit, exactly; two keys and the anonymous limit are independent', async () => {
    await withService({ API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      const alice = await burst(baseUrl, 8, '/ip/8.8.8.8', bearer(ALICE));
      assert.deepEqual(alice, { ok: 3, limited: 5, limits: new Set(['3']) });
      const bob = await burst(baseUrl, 8, `/ip/8.8.8.8?key=${BOB}`);
      assert.deepEqual(bob, { ok: 4, limited: 4, limits: new Set(['4']) });
      const anonymous = await burst(baseUrl, 8, '/ip/8.8.8.8');
      assert.deepEqual(anonymous, { ok: 5, limited: 3, limits: new Set(['5']) });
      const over = await get(baseUrl, '/ip/1.1.1.1', bearer(ALICE));
      assert.equal(errorCode(over.body), 'RATE_LIMITED');
      assert.match(
        (over.body as { error: { message: string } }).error.message,
        /limit is 3 per 60 s for this API key/,
      );
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
    });
  });

  it('RateLimit-* describe the key: limit, remaining counting down', async () => {
    await withService({ API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      for (const remaining of ['3', '2', '1']) {
        const r = await get(baseUrl, '/cidr?range=10.0.0.0/8', bearer(BOB));
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('ratelimit-limit'), '4');
        assert.equal(r.headers.get('ratelimit-remaining'), remaining);
      }
    });
  });

  it('a sha256: key works, with the default limit (empty limit column)', async () => {
    await withService({ API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      const r = await get(baseUrl, '/ip/8.8.8.8', bearer(HASHED));
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('ratelimit-limit'), '5');
      assert.equal(dataOf<{ ip: string }>(r.body).ip, '8.8.8.8');
    });
  });

  it('a wrong key is 401 UNAUTHORIZED with WWW-Authenticate, never the anonymous limit', async () => {
    await withService({ API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      for (const init of [bearer(`${ALICE}x`), {}]) {
        const path = 'headers' in init ? '/ip/8.8.8.8' : `/ip/8.8.8.8?key=${ALICE.slice(1)}`;
        const r = await get(baseUrl, path, init);
        assert.equal(r.status, 401);
        assert.deepEqual(Object.keys((r.body as { error: object }).error).sort(), [
          'code',
          'message',
        ]);
        assert.equal(errorCode(r.body), 'UNAUTHORIZED');
        assert.equal(
          r.headers.get('www-authenticate'),
          'Bearer realm="ipintel", error="invalid_token"',
        );
        assert.ok(!r.text.includes(ALICE.slice(1)), 'the key is not echoed');
      }
      // the header wins: a right header with a wrong query key is admitted
      const both = await get(baseUrl, `/ip/8.8.8.8?key=wrong-key-0000000000`, bearer(ALICE));
      assert.equal(both.status, 200);
    });
  });

  it('wrong keys are counted by address: guessing is rate limited (429 after the limit)', async () => {
    await withService({ API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      const statuses = [];
      for (let i = 0; i < 7; i++) {
        statuses.push((await get(baseUrl, '/ip/8.8.8.8', bearer(`guess-${i}-0123456789`))).status);
      }
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    });
  });

  it('POST /batch and /mcp are counted against the key, not the address', async () => {
    const file = keysFile(`name,key,limit\nbulk,${BOB},100\n`);
    await withService({ API_KEYS_FILE: file }, async ({ baseUrl }) => {
      const batch = await get(baseUrl, '/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BOB}` },
        body: JSON.stringify(['8.8.8.8', '1.1.1.1']),
      });
      assert.equal(batch.status, 200);
      assert.equal(batch.headers.get('ratelimit-remaining'), '99');
      const client = new Client({ name: 'ipintel-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${BOB}` } },
        }),
      );
      try {
        const tools = await client.listTools();
        assert.ok(tools.tools.length > 0);
      } finally {
        await client.close();
      }
      const keyed = await get(baseUrl, '/cidr?range=10.0.0.0/8', bearer(BOB));
      // the batch, then MCP's initialize and tools/list at least, then this one
      assert.ok(Number(keyed.headers.get('ratelimit-remaining')) <= 96, 'MCP counted on the key');
      const anonymous = await get(baseUrl, '/cidr?range=10.0.0.0/8');
      assert.equal(
        anonymous.headers.get('ratelimit-remaining'),
        '4',
        'the address was not counted',
      );
    });
  });
});

describe('API keys, required (API_KEYS_REQUIRED=true)', () => {
  const env = () => ({ API_KEYS_FILE: keysFile(KEYS), API_KEYS_REQUIRED: 'true' });

  it('no key → 401 with the envelope and WWW-Authenticate: Bearer; a key → 200', async () => {
    await withService(env(), async ({ baseUrl }) => {
      for (const path of ['/ip/8.8.8.8', '/', '/openapi.json', '/no/such/route', '/metrics']) {
        const r = await get(baseUrl, path);
        assert.equal(r.status, 401, path);
        assert.equal(errorCode(r.body), 'UNAUTHORIZED', path);
        assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="ipintel"', path);
      }
      assert.equal((await get(baseUrl, '/ip/8.8.8.8', bearer(ALICE))).status, 200);
      assert.equal((await get(baseUrl, '/no/such/route', bearer(ALICE))).status, 404);
      // /metrics: without METRICS_TOKEN, a valid key opens it (and is not counted)
      const metrics = await get(baseUrl, '/metrics', bearer(ALICE));
      assert.equal(metrics.status, 200);
      assert.ok(!metrics.text.includes(ALICE) && !metrics.text.includes(BOB), 'no key in /metrics');
    });
  });

  it('health, readiness, the page’s assets and CORS preflights stay open', async () => {
    await withService(env(), async ({ baseUrl }) => {
      assert.equal((await get(baseUrl, '/healthz')).status, 200);
      assert.equal((await get(baseUrl, '/readyz')).status, 200);
      const page = await get(baseUrl, `/?key=${ALICE}`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      const assets = [...page.text.matchAll(/"(\/assets\/[^"#]+)/g)].map((m) => m[1]!);
      assert.equal(assets.length, 4);
      for (const asset of assets) assert.equal((await get(baseUrl, asset)).status, 200, asset);
      const preflight = await get(baseUrl, '/ip/8.8.8.8', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://example.test',
          'access-control-request-headers': 'authorization',
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    });
  });

  it('the page opened with ?key= keeps the key in its API links and form', async () => {
    await withService(env(), async ({ baseUrl }) => {
      const page = await get(baseUrl, `/?key=${ALICE}&q=8.8.8.8`, {
        headers: { accept: 'text/html' },
      });
      assert.equal(page.status, 200);
      assert.ok(page.text.includes(`<input type="hidden" name="key" value="${ALICE}">`));
      assert.ok(page.text.includes(`/ip/8.8.8.8/vpn?key=${ALICE}`), 'the curl commands');
      assert.ok(page.text.includes(`href="/openapi.json?key=${ALICE}"`));
      // its links work as they are
      assert.equal((await get(baseUrl, `/openapi.json?key=${ALICE}`)).status, 200);
      // a key in the header (an API client) is not written into anything
      const json = await get(baseUrl, '/', bearer(ALICE));
      assert.equal(json.status, 200);
      assert.ok(!json.text.includes(ALICE), 'GET / shows no key');
    });
  });
});

describe('reloading the keys', () => {
  it('a changed file is read again; a bad one is refused whole, with its lines, and the old keys stay', async () => {
    const file = keysFile(KEYS);
    const source = ApiKeySource.open(file, 5);
    await withService(
      { API_KEYS_FILE: file },
      async ({ baseUrl }) => {
        assert.equal((await source.reload({ ifChanged: true })).reloaded, false);
        writeFileSync(file, `name,key,limit\ncarol,carol-key-0123456789,2\n`);
        assert.deepEqual(await source.reload({ ifChanged: true }), { reloaded: true, keys: 1 });
        assert.equal(
          (await get(baseUrl, '/ip/8.8.8.8', bearer('carol-key-0123456789'))).status,
          200,
        );
        assert.equal(
          (await get(baseUrl, '/ip/8.8.8.8', bearer(ALICE))).status,
          401,
          'alice was removed',
        );
        writeFileSync(file, `name,key,limit\ncarol,carol-key-0123456789,2\ndave,short,x\n`);
        await assert.rejects(source.reload(), (error: unknown) => {
          assert.ok(error instanceof ApiKeysFileError);
          assert.deepEqual(
            error.problems.map((p) => p.replace(/:.*/, '')),
            ['line 3', 'line 3'],
          );
          return true;
        });
        assert.equal(
          (await get(baseUrl, '/ip/8.8.8.8', bearer('carol-key-0123456789'))).status,
          200,
        );
        // reported once per change, not at every check
        assert.equal((await source.reload({ ifChanged: true })).reloaded, false);
      },
      source,
    );
  });

  it('a bad file at start is refused with its line numbers', () => {
    const file = keysFile(`name,key,limit\nalice,${ALICE},3\nalice,${BOB},3\n`);
    assert.throws(
      () => ApiKeySource.open(file, 5),
      /line 3: the name "alice" is already on line 2/,
    );
    assert.throws(
      () => ApiKeySource.open(join(dir, 'missing.csv'), 5),
      /cannot be read \(ENOENT\)/,
    );
  });
});

describe('/metrics for the operator', () => {
  it('without METRICS_TOKEN (and keys optional) it is open, as before', async () => {
    await withService({}, async ({ baseUrl }) => {
      assert.equal((await get(baseUrl, '/metrics')).status, 200);
    });
  });

  it('METRICS_TOKEN: 401 without it or with another token (API keys included), 200 with it', async () => {
    await withService({ METRICS_TOKEN, API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      for (const init of [{}, bearer('metrics-token-012345678x'), bearer(ALICE)]) {
        const r = await get(baseUrl, '/metrics', init);
        assert.equal(r.status, 401);
        assert.equal(errorCode(r.body), 'UNAUTHORIZED');
        assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      }
      const ok = await get(baseUrl, '/metrics', bearer(METRICS_TOKEN));
      assert.equal(ok.status, 200);
      assert.match(ok.text, /ipintel_http_requests_total/);
      assert.ok(!ok.text.includes(METRICS_TOKEN));
    });
  });

  it('METRICS_PORT: the public port answers 404 for /metrics', async () => {
    await withService({ METRICS_PORT: '9' }, async ({ baseUrl }) => {
      const r = await get(baseUrl, '/metrics');
      assert.equal(r.status, 404);
      assert.equal(errorCode(r.body), 'NOT_FOUND');
    });
  });
});

describe('OpenAPI', () => {
  it('declares the key schemes and 401 where they apply', async () => {
    await withService(
      { METRICS_TOKEN, API_KEYS_FILE: keysFile(KEYS), API_KEYS_REQUIRED: 'true' },
      async ({ baseUrl }) => {
        const doc = (await get(baseUrl, '/openapi.json', bearer(ALICE))).body as {
          components: {
            securitySchemes: Record<string, { type: string; in?: string; name?: string }>;
          };
          paths: Record<
            string,
            Record<string, { security?: unknown; responses: Record<string, unknown> }>
          >;
        };
        assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
          'apiKey',
          'apiKeyQuery',
          'metricsToken',
        ]);
        assert.deepEqual(doc.components.securitySchemes['apiKeyQuery'], {
          ...doc.components.securitySchemes['apiKeyQuery'],
          type: 'apiKey',
          in: 'query',
          name: 'key',
        });
        const ip = doc.paths['/ip/{ip}']!['get']!;
        assert.deepEqual(ip.security, [{ apiKey: [] }, { apiKeyQuery: [] }]);
        assert.ok('401' in ip.responses);
        assert.deepEqual(doc.paths['/metrics']!['get']!.security, [{ metricsToken: [] }]);
        assert.equal(doc.paths['/healthz']!['get']!.security, undefined);
        assert.ok(!('401' in doc.paths['/healthz']!['get']!.responses));
      },
    );
    await withService({ API_KEYS_FILE: keysFile(KEYS) }, async ({ baseUrl }) => {
      const doc = (await get(baseUrl, '/openapi.json')).body as {
        paths: Record<string, Record<string, { security?: unknown }>>;
      };
      // optional: {} first, anonymous allowed
      assert.deepEqual(doc.paths['/ip/{ip}']!['get']!.security, [
        {},
        { apiKey: [] },
        { apiKeyQuery: [] },
      ]);
    });
  });
});
