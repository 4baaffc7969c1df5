// An instance that stalls (a long GC, a starved CPU) past the bound of a
// Redis call while Redis's reply is already waiting in the socket: the reply
// is taken, not the timeout, against a real redis-server. Taking the timeout
// marked Redis down and counted requests in process, past the shared limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../src/http/rate-limit.js';
import { redisStoreFixture } from '../helpers/redis-stores.js';

const TIMEOUT_MS = 100;
const LIMIT = 5;

const redis = redisStoreFixture(TIMEOUT_MS);

/**
 * Holds the event loop for `ms`, as a stalled process does. Called in the
 * check phase (from an immediate), the next thing the loop does after it is
 * run the timers that fell due, and only then poll for the reply.
 */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('an instance stalled past the bound of its Redis call', () => {
  it('takes the reply that came meanwhile, and Redis stays up', async () => {
    const { link, health } = await redis.open();
    await new Promise(setImmediate); // the call goes out in the check phase
    const call = link.run((client) => client.ping());
    stall(3 * TIMEOUT_MS);
    assert.equal(await call, 'PONG');
    assert.equal(health(), 'up');
  });

  it('a request past the limit is refused, not counted in process', async () => {
    // no lease kept: every request asks Redis
    const { rateLimit, memory } = await redis.open({ leaseMs: 0 });
    for (let i = 1; i <= LIMIT; i++) {
      assert.equal((await rateLimit.hit('k', LIMIT, 60_000)).count, i);
    }
    const late = rateLimit.hit('k', LIMIT, 60_000);
    // once the store's call has gone out this turn (immediates run in order)
    setImmediate(() => stall(3 * TIMEOUT_MS));
    const hit = await late;
    assert.equal(decide(hit, LIMIT, Date.now()).allowed, false, `count ${hit.count}`);
    assert.equal(memory.size, 0, 'nothing counted in process');
  });
});
