// TRUST_PROXY end to end: the caller seen by GET /ip and by the rate limiter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataOf, get, startService } from '../helpers/service.js';

async function callerWith(env: Record<string, string>, xff: string | undefined): Promise<unknown> {
  const service = await startService({ env });
  try {
    const res = await get(
      service.baseUrl,
      '/ip',
      xff === undefined ? {} : { headers: { 'x-forwarded-for': xff } },
    );
    assert.equal(res.status, 200);
    return dataOf(res.body)['ip'];
  } finally {
    await service.close();
  }
}

describe('TRUST_PROXY over a real socket', () => {
  const table: { env: Record<string, string>; xff: string | undefined; want: string }[] = [
    { env: {}, xff: '8.8.8.8', want: '127.0.0.1' },
    { env: { TRUST_PROXY: 'false' }, xff: '8.8.8.8', want: '127.0.0.1' },
    { env: { TRUST_PROXY: 'true' }, xff: '8.8.8.8', want: '8.8.8.8' },
    { env: { TRUST_PROXY: 'true' }, xff: undefined, want: '127.0.0.1' },
    { env: { TRUST_PROXY: 'true' }, xff: 'garbage', want: '127.0.0.1' },
    { env: { TRUST_PROXY: 'true' }, xff: '8.8.8.8:4711', want: '8.8.8.8' },
    { env: { TRUST_PROXY: '1' }, xff: '1.2.3.4, 1.1.1.1', want: '1.1.1.1' },
    { env: { TRUST_PROXY: '127.0.0.1/32' }, xff: '8.8.4.4', want: '8.8.4.4' },
    { env: { TRUST_PROXY: '10.0.0.0/8' }, xff: '8.8.4.4', want: '127.0.0.1' },
  ];
  for (const { env, xff, want } of table) {
    it(`TRUST_PROXY=${env['TRUST_PROXY'] ?? '(unset)'}, X-Forwarded-For: ${xff ?? '(none)'} → ${want}`, async () => {
      assert.equal(await callerWith(env, xff), want);
    });
  }

  it('the rate limit follows the forwarded client, not the proxy', async (t) => {
    const service = await startService({ env: { TRUST_PROXY: 'true', RATE_LIMIT_MAX: '1' } });
    t.after(() => service.close());
    const as = async (client: string) =>
      (await get(service.baseUrl, '/ip/8.8.8.8', { headers: { 'x-forwarded-for': client } }))
        .status;
    assert.deepEqual(
      [await as('8.8.8.8'), await as('8.8.8.8'), await as('9.9.9.9')],
      [200, 429, 200],
    );
  });
});
