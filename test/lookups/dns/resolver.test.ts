// The stub resolver against a real DNS server on 127.0.0.1: transport,
// retries, TCP fallback, and every reply it must ignore or refuse.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError, type ErrorCode } from '../../../src/kit/errors.js';
import { createResolver, type DnsResponse } from '../../../src/lookups/dns/resolver.js';
import { startDnsServer, type DnsTestServer, type ZoneTable } from '../../helpers/dns-server.js';

/** for rows that wait out a timeout on purpose */
const TIMEOUT_MS = 150;
/** for rows that must never time out, even on a loaded machine (server and client share a process) */
const PATIENT_MS = 2000;

const ZONE: ZoneTable = {
  'ok.test': { records: [{ type: 'A', data: '192.0.2.1', ttl: 60 }] },
  'big.test': { behaviour: 'truncate', records: [{ type: 'A', data: '192.0.2.2' }] },
  'servfail.test': { behaviour: 'servfail' },
  'servfail-once.test': {
    behaviour: 'servfail',
    times: 1,
    records: [{ type: 'A', data: '192.0.2.3' }],
  },
  'refused.test': { behaviour: 'refused' },
  'formerr.test': { behaviour: 'formerr' },
  'formerr-bare.test': { behaviour: 'formerr-no-question' },
  'drop.test': { behaviour: 'drop' },
  'drop-once.test': { behaviour: 'drop', times: 1, records: [{ type: 'A', data: '192.0.2.4' }] },
  'garbage.test': { behaviour: 'garbage' },
  'junk.test': { behaviour: 'junk' },
  'wrong-id.test': { behaviour: 'wrong-id', records: [{ type: 'A', data: '192.0.2.5' }] },
  'wrong-id-only.test': { behaviour: 'wrong-id-only' },
  'wrong-question.test': {
    behaviour: 'wrong-question',
    records: [{ type: 'A', data: '192.0.2.6' }],
  },
  'tc-garbage.test': { behaviour: 'truncate-then-garbage' },
  'tc-drop.test': { behaviour: 'truncate-then-drop' },
  'wrong-port.test': { behaviour: 'wrong-port', records: [{ type: 'A', data: '192.0.2.7' }] },
};

let server: DnsTestServer;
let second: DnsTestServer;
const at = (s: DnsTestServer) => ({ host: s.host, port: s.port });

before(async () => {
  server = await startDnsServer(ZONE);
  // the second server knows every name the first drops or fails
  second = await startDnsServer({
    'drop.test': { records: [{ type: 'A', data: '198.51.100.1' }] },
    'servfail.test': { records: [{ type: 'A', data: '198.51.100.2' }] },
  });
});
after(async () => {
  await server.close();
  await second.close();
});

function addresses(response: DnsResponse): string[] {
  return response.answers.flatMap((a) => (a.type === 'A' ? [a.data] : []));
}

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  let caught: unknown;
  await promise.catch((error: unknown) => {
    caught = error;
  });
  assert.ok(caught instanceof AppError, `expected AppError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

const queriesFor = (s: DnsTestServer, name: string) => s.queries.filter((q) => q.name === name);

void describe('resolver, one server', () => {
  const query = () => createResolver({ servers: [at(server)], timeoutMs: TIMEOUT_MS });
  const patient = () => createResolver({ servers: [at(server)], timeoutMs: PATIENT_MS });

  const answered: { name: string; want: string[]; tries: number; why: string }[] = [
    { name: 'ok.test', want: ['192.0.2.1'], tries: 1, why: 'plain answer over UDP' },
    { name: 'big.test', want: ['192.0.2.2'], tries: 2, why: 'TC=1 → same server over TCP' },
    { name: 'servfail-once.test', want: ['192.0.2.3'], tries: 2, why: 'SERVFAIL → retried' },
    { name: 'drop-once.test', want: ['192.0.2.4'], tries: 2, why: 'timeout → retried' },
    { name: 'wrong-id.test', want: ['192.0.2.5'], tries: 1, why: 'reply with another ID ignored' },
    {
      name: 'wrong-question.test',
      want: ['192.0.2.6'],
      tries: 1,
      why: 'reply to another question ignored',
    },
    {
      name: 'wrong-port.test',
      want: ['192.0.2.7'],
      tries: 1,
      why: 'reply from another port ignored',
    },
  ];
  for (const { name, want, tries, why } of answered) {
    void it(`${why} → ${want.join(',')} after ${tries} quer${tries === 1 ? 'y' : 'ies'}`, async () => {
      // drop-once must wait out one timeout; the others must never see one
      const resolver =
        name === 'drop-once.test'
          ? createResolver({ servers: [at(server)], timeoutMs: 300 })
          : patient();
      const response = await resolver(name, 'A');
      assert.equal(response.rcode, 'NOERROR');
      assert.deepEqual(addresses(response), want);
      assert.equal(queriesFor(server, name).length, tries);
    });
  }

  void it('TC=1 → the second query goes over TCP', () => {
    assert.deepEqual(
      queriesFor(server, 'big.test').map((q) => q.transport),
      ['udp', 'tcp'],
    );
  });

  void it('queries carry EDNS0 with a 1232-octet payload and fresh random IDs', async () => {
    for (let i = 0; i < 5; i++) await patient()('ok.test', 'A');
    const logged = queriesFor(server, 'ok.test');
    assert.ok(logged.every((q) => q.ednsPayload === 1232));
    assert.ok(new Set(logged.map((q) => q.id)).size > 1);
  });

  void it('NXDOMAIN → returned with its rcode, not thrown', async () => {
    const response = await patient()('missing.test', 'A');
    assert.equal(response.rcode, 'NXDOMAIN');
    assert.deepEqual(response.answers, []);
  });

  const failures: { name: string; code: ErrorCode; tries: number; why: string }[] = [
    { name: 'servfail.test', code: 'UPSTREAM_ERROR', tries: 3, why: 'SERVFAIL every time' },
    { name: 'refused.test', code: 'UPSTREAM_ERROR', tries: 1, why: 'REFUSED (no retry)' },
    { name: 'formerr.test', code: 'UPSTREAM_ERROR', tries: 1, why: 'FORMERR (no retry)' },
    {
      name: 'formerr-bare.test',
      code: 'UPSTREAM_ERROR',
      tries: 1,
      why: 'FORMERR without question',
    },
    { name: 'garbage.test', code: 'UPSTREAM_ERROR', tries: 1, why: 'undecodable reply' },
    { name: 'tc-garbage.test', code: 'UPSTREAM_ERROR', tries: 2, why: 'TC, then garbage over TCP' },
    // UDP TC, TCP silent, UDP TC again with no try left for TCP: the server answered, unusably
    { name: 'tc-drop.test', code: 'UPSTREAM_ERROR', tries: 3, why: 'TC, then a silent TCP' },
    { name: 'drop.test', code: 'UPSTREAM_TIMEOUT', tries: 3, why: 'no reply' },
    { name: 'junk.test', code: 'UPSTREAM_TIMEOUT', tries: 3, why: 'only junk without our ID' },
    { name: 'wrong-id-only.test', code: 'UPSTREAM_TIMEOUT', tries: 3, why: 'only forged IDs' },
  ];
  for (const { name, code, tries, why } of failures) {
    void it(`${why} → ${code} after ${tries} quer${tries === 1 ? 'y' : 'ies'}`, async () => {
      // only rows that wait out timeouts get the short one: a spurious timeout would add a query
      const waits = code === 'UPSTREAM_TIMEOUT' || name === 'tc-drop.test';
      const error = await rejectsWith((waits ? query() : patient())(name, 'A'), code);
      assert.equal(queriesFor(server, name).length, tries);
      if (name === 'garbage.test') assert.ok(error.cause instanceof Error);
    });
  }

  void it('a silent server fails within 3 × the timeout', async () => {
    const started = Date.now();
    await rejectsWith(query()('drop.test', 'A'), 'UPSTREAM_TIMEOUT');
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 3 * TIMEOUT_MS - 10, `took ${elapsed} ms`);
    assert.ok(elapsed < 3 * TIMEOUT_MS + 400, `took ${elapsed} ms`);
  });

  void it('maxTries 1 → a single query', async () => {
    const before = queriesFor(server, 'drop.test').length;
    await rejectsWith(query()('drop.test', 'A', { maxTries: 1 }), 'UPSTREAM_TIMEOUT');
    assert.equal(queriesFor(server, 'drop.test').length, before + 1);
  });

  void it('an aborted signal → UPSTREAM_TIMEOUT at once', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    await rejectsWith(query()('drop.test', 'A', { signal: controller.signal }), 'UPSTREAM_TIMEOUT');
    assert.ok(Date.now() - started < TIMEOUT_MS, 'ended before the first timeout');
  });

  void it('aborting at any moment (UDP or TCP) leaves nothing behind', async () => {
    // a stray exception or an open socket here would fail or hang the test run
    const runs = [];
    for (let delay = 0; delay < 30; delay++) {
      const controller = new AbortController();
      if (delay === 0) controller.abort();
      else setTimeout(() => controller.abort(), delay / 3);
      const name = delay % 2 === 0 ? 'big.test' : 'drop.test';
      runs.push(query()(name, 'A', { signal: controller.signal }).catch((e: unknown) => e));
    }
    for (const outcome of await Promise.all(runs)) {
      if (outcome instanceof AppError) assert.equal(outcome.code, 'UPSTREAM_TIMEOUT');
    }
  });

  void it('a name DNS cannot carry → INVALID_DOMAIN, nothing sent', async () => {
    const before = server.queries.length;
    await rejectsWith(query()(`${'a'.repeat(64)}.test`, 'A'), 'INVALID_DOMAIN');
    await rejectsWith(query()(`${'a.'.repeat(127)}test`, 'A'), 'INVALID_DOMAIN');
    assert.equal(server.queries.length, before);
  });

  void it('no server configured → UPSTREAM_ERROR', async () => {
    await rejectsWith(
      createResolver({ servers: [], timeoutMs: TIMEOUT_MS })('ok.test', 'A'),
      'UPSTREAM_ERROR',
    );
  });
});

void describe('resolver, several servers', () => {
  void it('timeout on the first server → the next one answers', async () => {
    const query = createResolver({ servers: [at(server), at(second)], timeoutMs: 300 });
    assert.deepEqual(addresses(await query('drop.test', 'A')), ['198.51.100.1']);
  });

  void it('SERVFAIL on the first server → the next one answers', async () => {
    const query = createResolver({ servers: [at(server), at(second)], timeoutMs: PATIENT_MS });
    assert.deepEqual(addresses(await query('servfail.test', 'A')), ['198.51.100.2']);
  });

  void it('REFUSED on the first server → no retry elsewhere', async () => {
    const query = createResolver({ servers: [at(server), at(second)], timeoutMs: PATIENT_MS });
    const before = second.queries.length;
    await rejectsWith(query('refused.test', 'A'), 'UPSTREAM_ERROR');
    assert.equal(second.queries.length, before);
  });

  void it('three tries in all, rotating: first, second, first', async () => {
    const silent = await startDnsServer({ 'x.test': { behaviour: 'drop' } });
    const other = await startDnsServer({ 'x.test': { behaviour: 'drop' } });
    try {
      const query = createResolver({ servers: [at(silent), at(other)], timeoutMs: 60 });
      await rejectsWith(query('x.test', 'A'), 'UPSTREAM_TIMEOUT');
      assert.equal(silent.queries.length, 2);
      assert.equal(other.queries.length, 1);
    } finally {
      await silent.close();
      await other.close();
    }
  });

  void it('an IPv6 server (::1) is asked over udp6 and tcp6', async (t) => {
    let v6: DnsTestServer;
    try {
      v6 = await startDnsServer(
        { 'big.test': { behaviour: 'truncate', records: [{ type: 'A', data: '192.0.2.2' }] } },
        '::1',
      );
    } catch {
      t.skip('no IPv6 loopback on this machine');
      return;
    }
    try {
      const query = createResolver({ servers: [at(v6)], timeoutMs: PATIENT_MS });
      assert.deepEqual(addresses(await query('big.test', 'A')), ['192.0.2.2']);
      assert.deepEqual(
        v6.queries.map((q) => q.transport),
        ['udp', 'tcp'],
      );
    } finally {
      await v6.close();
    }
  });

  void it('a closed port → the next server answers', async () => {
    const gone = await startDnsServer({});
    const closed = at(gone);
    await gone.close();
    const query = createResolver({ servers: [closed, at(server)], timeoutMs: PATIENT_MS });
    assert.deepEqual(addresses(await query('ok.test', 'A')), ['192.0.2.1']);
  });
});
