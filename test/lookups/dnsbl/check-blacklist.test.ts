// checkBlacklist end to end: real DNSBL zone names, served by a DNS server on
// 127.0.0.1 (nothing leaves loopback), with listed, clean and broken answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_DNSBL_ZONES } from '../../../src/config.js';
import { AppError } from '../../../src/kit/errors.js';
import { createResolver } from '../../../src/lookups/dns/resolver.js';
import {
  LISTED_THRESHOLD,
  createBlacklistChecker,
  type BlacklistChecker,
  type BlacklistSource,
} from '../../../src/lookups/dnsbl/index.js';
import { startDnsServer, type DnsTestServer, type ZoneTable } from '../../helpers/dns-server.js';

// long enough that no live answer is lost on a loaded machine, short enough for dead lists
const TIMEOUT_MS = 250;
// the service's default lists, and one not in the known-zone table
const ZONES = [...DEFAULT_DNSBL_ZONES, 'rbl.example.test'];

const a = (data: string) => ({ type: 'A' as const, data });
const txt = (...data: string[]) => ({ type: 'TXT' as const, data });

const ZONE: ZoneTable = {
  // 127.0.0.2: the RFC 5782 test address, listed nearly everywhere
  '2.0.0.127.zen.spamhaus.org': {
    records: [
      a('127.0.0.2'),
      a('127.0.0.4'),
      txt('https://www.spamhaus.org/', 'query/ip/127.0.0.2'),
    ],
  },
  '2.0.0.127.bl.spamcop.net': { records: [a('127.0.0.2'), txt('Blocked - see\r\n spamcop\u0000')] },
  '2.0.0.127.all.s5h.net': { records: [a('127.0.0.2')] }, // no TXT: reason null
  // 10.0.0.1: Spamhaus PBL only (policy, 0.3)
  '1.0.0.10.zen.spamhaus.org': { records: [a('127.0.0.11')] },
  // 10.0.0.2: Spamhaus refuses the resolver; SpamCop lists
  '2.0.0.10.zen.spamhaus.org': { records: [a('127.255.255.254')] },
  '2.0.0.10.bl.spamcop.net': { records: [a('127.0.0.2')] },
  // 10.0.0.3: a rewriting resolver answers outside 127/8
  '3.0.0.10.bl.spamcop.net': { records: [a('198.51.100.80')] },
  // 10.0.0.4: DroneBL never answers; PSBL lists
  '4.0.0.10.dnsbl.dronebl.org': { behaviour: 'drop' },
  '4.0.0.10.psbl.surriel.com': { records: [a('127.0.0.2')] },
  // 10.0.0.5: Mailspike SERVFAIL, garbage from s5h
  '5.0.0.10.bl.mailspike.net': { behaviour: 'servfail' },
  '5.0.0.10.all.s5h.net': { behaviour: 'garbage' },
  // 10.0.0.6: 127.0.0.1 is never a listing (RFC 5782 §5)
  '6.0.0.10.psbl.surriel.com': { records: [a('127.0.0.1')] },
  // 10.0.0.7: the unknown zone lists
  '7.0.0.10.rbl.example.test': { records: [a('127.0.0.2'), txt('listed by example')] },
  // 10.0.0.8: listed, but the TXT reason never comes
  '8.0.0.10.bl.spamcop.net': {
    records: [a('127.0.0.2'), txt('never sent')],
    behaviour: 'drop',
    behaviourTypes: ['TXT'],
  },
  // 10.0.0.9: only a low-weight list (s5h 0.4)
  '9.0.0.10.all.s5h.net': { records: [a('127.0.0.3')] },
};

let server: DnsTestServer;
let checker: BlacklistChecker;

before(async () => {
  server = await startDnsServer(ZONE);
  const query = createResolver({
    servers: [{ host: server.host, port: server.port }],
    timeoutMs: TIMEOUT_MS,
  });
  checker = createBlacklistChecker({ query, zones: ZONES, timeoutMs: TIMEOUT_MS });
});
after(() => server.close());

const byZone = (sources: readonly BlacklistSource[], zone: string) => {
  const source = sources.find((s) => s.zone === zone);
  assert.ok(source, `no source for ${zone}`);
  return source;
};

void describe('checkBlacklist', () => {
  void it('127.0.0.2 → listed, with codes, confidences and TXT reasons', async () => {
    const result = await checker.checkBlacklist('127.0.0.2');
    assert.equal(result.ip, '127.0.0.2');
    assert.equal(result.isListed, true);
    assert.equal(result.listedCount, 3);
    assert.deepEqual(
      result.sources.map((s) => s.zone),
      ZONES,
    ); // one source per zone, in the configured order
    assert.deepEqual(byZone(result.sources, 'zen.spamhaus.org'), {
      name: 'Spamhaus ZEN',
      zone: 'zen.spamhaus.org',
      url: 'https://check.spamhaus.org/',
      listed: true,
      confidence: 0.9,
      codes: ['127.0.0.2', '127.0.0.4'],
      reason: 'https://www.spamhaus.org/query/ip/127.0.0.2', // strings joined
      error: null,
    });
    // control characters in the list's text are flattened
    assert.equal(byZone(result.sources, 'bl.spamcop.net').reason, 'Blocked - see spamcop');
    assert.equal(byZone(result.sources, 'all.s5h.net').reason, null);
    const clean = byZone(result.sources, 'dnsbl.dronebl.org');
    assert.deepEqual(
      {
        listed: clean.listed,
        confidence: clean.confidence,
        codes: clean.codes,
        error: clean.error,
      },
      { listed: false, confidence: 0, codes: [], error: null },
    );
  });

  void it('asks A at reversed-octets.zone, then TXT only where listed', () => {
    const names = server.queries.map((q) => `${q.type} ${q.name}`);
    assert.ok(names.includes('A 2.0.0.127.zen.spamhaus.org'));
    assert.ok(names.includes('TXT 2.0.0.127.zen.spamhaus.org'));
    assert.ok(!names.includes('TXT 2.0.0.127.dnsbl.dronebl.org'));
  });

  void it('a clean address → isListed false, every source clean', async () => {
    const result = await checker.checkBlacklist('192.0.2.99');
    assert.equal(result.isListed, false);
    assert.equal(result.listedCount, 0);
    assert.ok(result.sources.every((s) => !s.listed && s.error === null && s.confidence === 0));
  });

  const cases: {
    why: string;
    ip: string;
    zone: string;
    listed: boolean;
    confidence: number;
    error: RegExp | null;
    isListed: boolean;
  }[] = [
    {
      why: 'PBL only → listed at 0.3, isListed false',
      ip: '10.0.0.1',
      zone: 'zen.spamhaus.org',
      listed: true,
      confidence: 0.3,
      error: null,
      isListed: false,
    },
    {
      why: 'Spamhaus 127.255.255.254 → error, not listed',
      ip: '10.0.0.2',
      zone: 'zen.spamhaus.org',
      listed: false,
      confidence: 0,
      error: /public or open resolvers/,
      isListed: true,
    },
    {
      why: 'answer outside 127/8 → error',
      ip: '10.0.0.3',
      zone: 'bl.spamcop.net',
      listed: false,
      confidence: 0,
      error: /outside 127/,
      isListed: false,
    },
    {
      why: 'list never answers → timeout error',
      ip: '10.0.0.4',
      zone: 'dnsbl.dronebl.org',
      listed: false,
      confidence: 0,
      error: /did not answer in time/,
      isListed: true,
    },
    {
      why: 'SERVFAIL → error',
      ip: '10.0.0.5',
      zone: 'bl.mailspike.net',
      listed: false,
      confidence: 0,
      error: /failed/,
      isListed: false,
    },
    {
      why: 'garbage reply → error',
      ip: '10.0.0.5',
      zone: 'all.s5h.net',
      listed: false,
      confidence: 0,
      error: /undecodable/,
      isListed: false,
    },
    {
      why: '127.0.0.1 → error, not listed',
      ip: '10.0.0.6',
      zone: 'psbl.surriel.com',
      listed: false,
      confidence: 0,
      error: /not a listing code/,
      isListed: false,
    },
    {
      why: 'unknown zone → its name, the default weight',
      ip: '10.0.0.7',
      zone: 'rbl.example.test',
      listed: true,
      confidence: 0.5,
      error: null,
      isListed: true,
    },
    {
      why: 'TXT never answers → still listed, reason null',
      ip: '10.0.0.8',
      zone: 'bl.spamcop.net',
      listed: true,
      confidence: 0.75,
      error: null,
      isListed: true,
    },
    {
      why: 'only a 0.4 list → isListed false',
      ip: '10.0.0.9',
      zone: 'all.s5h.net',
      listed: true,
      confidence: 0.4,
      error: null,
      isListed: false,
    },
  ];
  for (const { why, ip, zone, listed, confidence, error, isListed } of cases) {
    void it(why, async () => {
      const result = await checker.checkBlacklist(ip);
      const source = byZone(result.sources, zone);
      assert.equal(source.listed, listed);
      assert.equal(source.confidence, confidence);
      if (error === null) assert.equal(source.error, null);
      else assert.match(source.error ?? '', error);
      assert.equal(result.isListed, isListed);
      assert.equal(
        result.isListed,
        result.sources.some((s) => s.listed && s.confidence >= LISTED_THRESHOLD),
      );
    });
  }

  void it('the unknown zone is named by its zone, with no URL', async () => {
    const source = byZone((await checker.checkBlacklist('10.0.0.7')).sources, 'rbl.example.test');
    assert.equal(source.name, 'rbl.example.test');
    assert.equal(source.url, null);
    assert.equal(source.reason, 'listed by example');
  });

  void it('a dead list and a lost TXT never stretch the check past 3 × the timeout', async () => {
    for (const ip of ['10.0.0.4', '10.0.0.8']) {
      const started = Date.now();
      await checker.checkBlacklist(ip);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 3 * TIMEOUT_MS + 300, `${ip} took ${elapsed} ms`);
    }
  });

  void it('duplicate zones are asked once', async () => {
    const query = createResolver({
      servers: [{ host: server.host, port: server.port }],
      timeoutMs: TIMEOUT_MS,
    });
    const twice = createBlacklistChecker({
      query,
      zones: ['bl.spamcop.net', 'bl.spamcop.net'],
      timeoutMs: TIMEOUT_MS,
    });
    assert.equal((await twice.checkBlacklist('192.0.2.1')).sources.length, 1);
  });

  const refused: { input: string; code: string; why: string }[] = [
    { input: '2001:db8::1', code: 'IPV4_ONLY', why: 'IPv6' },
    { input: '::ffff:127.0.0.2', code: 'none', why: 'IPv4-mapped IPv6 is IPv4' },
    { input: 'not-an-ip', code: 'INVALID_IP', why: 'not an address' },
  ];
  for (const { input, code, why } of refused) {
    void it(`${why} → ${code === 'none' ? 'checked as IPv4' : code}`, async () => {
      if (code === 'none') {
        assert.equal((await checker.checkBlacklist(input)).ip, '127.0.0.2');
        return;
      }
      await assert.rejects(
        checker.checkBlacklist(input),
        (error: unknown) => error instanceof AppError && error.code === code,
      );
    });
  }
});
