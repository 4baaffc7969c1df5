import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interpretAnswer } from '../../../src/lookups/dnsbl/interpret.js';
import { dnsblQueryName } from '../../../src/lookups/dnsbl/query-name.js';
import { UNKNOWN_ZONE_WEIGHT, codeWeight, zoneInfo } from '../../../src/lookups/dnsbl/zones.js';
import { parseIpv4, type Ipv4 } from '../../../src/net/ip.js';
import { DEFAULT_DNSBL_ZONES } from '../../../src/config.js';

const ZEN = zoneInfo('zen.spamhaus.org');
const SPAMCOP = zoneInfo('bl.spamcop.net');
const MAILSPIKE = zoneInfo('bl.mailspike.net');

void describe('dnsblQueryName', () => {
  const cases = [
    { ip: '192.168.42.23', zone: 'dnsbl.dronebl.org', want: '23.42.168.192.dnsbl.dronebl.org' },
    { ip: '127.0.0.2', zone: 'zen.spamhaus.org', want: '2.0.0.127.zen.spamhaus.org' },
    { ip: '255.0.0.1', zone: 'x.test', want: '1.0.0.255.x.test' },
  ];
  for (const { ip, zone, want } of cases) {
    void it(`${ip} on ${zone} → ${want}`, () =>
      assert.equal(dnsblQueryName(parseIpv4(ip) as Ipv4, zone), want));
  }
});

void describe('zoneInfo', () => {
  void it('knows every default zone by a human name', () => {
    for (const zone of DEFAULT_DNSBL_ZONES) {
      const info = zoneInfo(zone);
      assert.notEqual(info.name, zone, zone);
      assert.ok(info.url?.startsWith('https://'), zone);
    }
  });
  void it('an unknown zone → its own name, no URL, the default weight', () => {
    assert.deepEqual(zoneInfo('rbl.example.test'), {
      zone: 'rbl.example.test',
      name: 'rbl.example.test',
      url: null,
      weight: UNKNOWN_ZONE_WEIGHT,
    });
  });
  void it('Spamhaus PBL codes weigh 0.3, the others 0.9', () => {
    assert.equal(codeWeight(ZEN, 10), 0.3);
    assert.equal(codeWeight(ZEN, 11), 0.3);
    assert.equal(codeWeight(ZEN, 2), 0.9);
    assert.equal(codeWeight(ZEN, 4), 0.9);
  });
});

void describe('interpretAnswer', () => {
  const cases: {
    why: string;
    info: ReturnType<typeof zoneInfo>;
    rcode: 'NOERROR' | 'NXDOMAIN';
    addresses: string[];
    want: { kind: string; confidence?: number; codes?: string[]; message?: RegExp };
  }[] = [
    {
      why: 'NXDOMAIN → not listed',
      info: ZEN,
      rcode: 'NXDOMAIN',
      addresses: [],
      want: { kind: 'clean' },
    },
    {
      why: 'NODATA → not listed',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: [],
      want: { kind: 'clean' },
    },
    {
      why: 'SBL 127.0.0.2 → listed at 0.9',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.0.0.2'],
      want: { kind: 'listed', confidence: 0.9, codes: ['127.0.0.2'] },
    },
    {
      why: 'PBL 127.0.0.10 → listed at 0.3',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.0.0.10'],
      want: { kind: 'listed', confidence: 0.3, codes: ['127.0.0.10'] },
    },
    {
      why: 'PBL and XBL together → the higher weight',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.0.0.11', '127.0.0.4'],
      want: { kind: 'listed', confidence: 0.9, codes: ['127.0.0.11', '127.0.0.4'] },
    },
    {
      why: 'Mailspike .11 → 0.4',
      info: MAILSPIKE,
      rcode: 'NOERROR',
      addresses: ['127.0.0.11'],
      want: { kind: 'listed', confidence: 0.4, codes: ['127.0.0.11'] },
    },
    {
      why: 'SpamCop 127.0.0.2 → 0.75',
      info: SPAMCOP,
      rcode: 'NOERROR',
      addresses: ['127.0.0.2', '127.0.0.2'],
      want: { kind: 'listed', confidence: 0.75, codes: ['127.0.0.2'] },
    },
    {
      why: 'Spamhaus 127.255.255.254 → error (public resolver), never listed',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.255.255.254'],
      want: { kind: 'error', message: /public or open resolvers/ },
    },
    {
      why: 'Spamhaus 127.255.255.252 → error (typo)',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.255.255.252'],
      want: { kind: 'error', message: /mistyped/ },
    },
    {
      why: 'Spamhaus 127.255.255.255 → error (rate limit)',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.255.255.255'],
      want: { kind: 'error', message: /rate limit/ },
    },
    {
      why: 'a listing code next to a refusal code → error',
      info: ZEN,
      rcode: 'NOERROR',
      addresses: ['127.0.0.2', '127.255.255.254'],
      want: { kind: 'error', message: /public or open/ },
    },
    {
      why: '127.255.255.x on another list → error',
      info: SPAMCOP,
      rcode: 'NOERROR',
      addresses: ['127.255.255.254'],
      want: { kind: 'error', message: /refused/ },
    },
    {
      why: 'an answer outside 127/8 → error (rewriting resolver)',
      info: SPAMCOP,
      rcode: 'NOERROR',
      addresses: ['203.0.113.9'],
      want: { kind: 'error', message: /outside 127\.0\.0\.0\/8/ },
    },
    {
      why: '127.0.0.1 → error (RFC 5782 §5: never a listing)',
      info: SPAMCOP,
      rcode: 'NOERROR',
      addresses: ['127.0.0.1'],
      want: { kind: 'error', message: /not a listing code/ },
    },
    {
      why: '127.0.1.2 (not 127.0.0.x) → error',
      info: SPAMCOP,
      rcode: 'NOERROR',
      addresses: ['127.0.1.2'],
      want: { kind: 'error', message: /unexpected code/ },
    },
    {
      why: 'not an address at all → error',
      info: SPAMCOP,
      rcode: 'NOERROR',
      addresses: ['127.0.0.undefined'],
      want: { kind: 'error', message: /not an address/ },
    },
  ];
  for (const { why, info, rcode, addresses, want } of cases) {
    void it(why, () => {
      const got = interpretAnswer(info, rcode, addresses);
      assert.equal(got.kind, want.kind);
      if (got.kind === 'listed') {
        assert.equal(got.confidence, want.confidence);
        assert.deepEqual(got.codes, want.codes);
      }
      if (got.kind === 'error') assert.match(got.message, want.message ?? /./);
    });
  }
});
