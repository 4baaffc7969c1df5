// A listener that cannot start stops the real service (src/main.ts, spawned)
// with one line on standard error naming the setting and the cause, and exit
// status 1: PORT taken, HOST not an address of this machine, METRICS_PORT
// taken. Nothing is sent anywhere: binding 192.0.2.1 (TEST-NET-1, on no
// interface here) fails before any packet.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listenFailure } from '../../src/http/listen-failure.js';
import { startupFailure } from '../helpers/spawned-service.js';

describe('a listener that cannot start', () => {
  let taken: Server;
  let takenPort = 0;
  before(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as AddressInfo).port;
  });
  after(() => taken.close());

  /** The one line the service wrote, checked to be one line and no stack trace. */
  function oneLine(stderr: string): string {
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /);
    return lines[0]!;
  }

  it('PORT already in use: one line naming PORT, exit 1', async () => {
    const { code, stderr } = await startupFailure({ PORT: String(takenPort), LOG_LEVEL: 'silent' });
    assert.equal(code, 1);
    assert.equal(
      oneLine(stderr),
      `PORT ${takenPort}: already in use on HOST 127.0.0.1 (another process listens there)`,
    );
  });

  it('HOST not an address of this machine: one line naming HOST, exit 1', async () => {
    const { code, stderr } = await startupFailure({ HOST: '192.0.2.1', LOG_LEVEL: 'silent' });
    assert.equal(code, 1);
    assert.match(
      oneLine(stderr),
      /^HOST 192\.0\.2\.1: not an address of this machine \(cannot listen on 192\.0\.2\.1:\d+\)$/,
    );
  });

  it('METRICS_PORT already in use: one line naming METRICS_PORT, exit 1', async () => {
    const { code, stderr } = await startupFailure({
      METRICS_PORT: String(takenPort),
      LOG_LEVEL: 'silent',
    });
    assert.equal(code, 1);
    assert.equal(
      oneLine(stderr),
      `METRICS_PORT ${takenPort}: already in use on METRICS_HOST 127.0.0.1 (another process listens there)`,
    );
  });
});

describe('listenFailure', () => {
  const settings = { port: 'PORT', host: 'HOST' } as const;
  const failure = (code: string): string =>
    listenFailure(Object.assign(new Error(`listen ${code}`), { code }), settings, 80, '10.0.0.1');

  it('names the privilege a low port needs, and any other cause as Node gives it', () => {
    assert.equal(
      failure('EACCES'),
      'PORT 80: permission denied on HOST 10.0.0.1 (ports below 1024 need privileges)',
    );
    assert.equal(failure('EMFILE'), 'PORT 80 on HOST 10.0.0.1: cannot listen: listen EMFILE');
  });
});
