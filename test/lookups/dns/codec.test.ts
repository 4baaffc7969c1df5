import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import {
  EDNS_UDP_PAYLOAD,
  encodeQuery,
  matchResponse,
  type Question,
} from '../../../src/lookups/dns/codec.js';

const ID = 0x1234;
const QUESTION: Question = { name: 'example.com', type: 'A' };

function response(overrides: Partial<Packet> = {}): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: ID,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name: 'example.com', type: 'A', class: 'IN' }],
    answers: [{ name: 'example.com', type: 'A', ttl: 60, class: 'IN', data: '192.0.2.1' }],
    ...overrides,
  });
}

/** a header with our ID, QR set and the given section counts, then `rest` */
function header(counts: [number, number, number, number], rest: number[] = []): Buffer {
  const [qd, an, ns, ar] = counts;
  return Buffer.from([
    ID >> 8,
    ID & 255,
    0x81,
    0x80,
    qd >> 8,
    qd & 255,
    an >> 8,
    an & 255,
    ns >> 8,
    ns & 255,
    ar >> 8,
    ar & 255,
    ...rest,
  ]);
}

// example.com A IN, as a question section
const QSECTION = [7, ...Buffer.from('example'), 3, ...Buffer.from('com'), 0, 0, 1, 0, 1];

void describe('encodeQuery', () => {
  void it('sends one IN question with RD and an EDNS0 OPT of 1232 octets', () => {
    const decoded = dnsPacket.decode(encodeQuery(ID, QUESTION));
    assert.equal(decoded.id, ID);
    assert.equal(decoded.flag_rd, true);
    assert.equal(decoded.flag_qr, false);
    assert.deepEqual(decoded.questions, [{ name: 'example.com', type: 'A', class: 'IN' }]);
    const opt = decoded.additionals?.[0];
    assert.equal(opt?.type, 'OPT');
    assert.equal(opt.type === 'OPT' ? opt.udpPayloadSize : 0, EDNS_UDP_PAYLOAD);
  });
});

void describe('matchResponse', () => {
  const cases: { name: string; message: Buffer; want: 'accept' | 'ignore' | 'garbage' }[] = [
    { name: 'the matching reply → accept', message: response(), want: 'accept' },
    {
      name: 'question echoed in other case → accept (RFC 4343)',
      message: response({ questions: [{ name: 'EXAMPLE.com', type: 'A', class: 'IN' }] }),
      want: 'accept',
    },
    { name: 'empty datagram → ignore', message: Buffer.alloc(0), want: 'ignore' },
    { name: 'one byte → ignore', message: Buffer.from([0x12]), want: 'ignore' },
    { name: 'another ID → ignore', message: response({ id: ID + 1 }), want: 'ignore' },
    {
      name: 'a query (QR clear) with our ID → ignore',
      message: dnsPacket.encode({
        type: 'query',
        id: ID,
        questions: [{ name: 'example.com', type: 'A' }],
      }),
      want: 'ignore',
    },
    {
      name: 'another name → ignore',
      message: response({ questions: [{ name: 'evil.com', type: 'A', class: 'IN' }] }),
      want: 'ignore',
    },
    {
      name: 'another type → ignore',
      message: response({ questions: [{ name: 'example.com', type: 'AAAA', class: 'IN' }] }),
      want: 'ignore',
    },
    {
      name: 'another class → ignore',
      message: response({ questions: [{ name: 'example.com', type: 'A', class: 'CH' }] }),
      want: 'ignore',
    },
    {
      name: 'two questions → ignore',
      message: response({
        questions: [
          { name: 'example.com', type: 'A', class: 'IN' },
          { name: 'example.com', type: 'A', class: 'IN' },
        ],
      }),
      want: 'ignore',
    },
    { name: 'NOERROR without a question → ignore', message: header([0, 0, 0, 0]), want: 'ignore' },
    {
      name: 'REFUSED without a question → accept (it can only fail the lookup)',
      message: Buffer.from([ID >> 8, ID & 255, 0x81, 0x85, 0, 0, 0, 0, 0, 0, 0, 0]),
      want: 'accept',
    },
    {
      name: 'header only, claims a question → garbage',
      message: header([1, 0, 0, 0]),
      want: 'garbage',
    },
    {
      name: 'header cut short → garbage',
      message: header([1, 0, 0, 0]).subarray(0, 7),
      want: 'garbage',
    },
    {
      name: 'claims 65535 answers → garbage',
      message: header([1, 65535, 0, 0], QSECTION),
      want: 'garbage',
    },
    {
      name: 'compression pointer to itself → garbage (RFC 1035 §4.1.4 allows prior data only)',
      message: header([1, 0, 0, 0], [0xc0, 12, 0, 1, 0, 1]),
      want: 'garbage',
    },
    {
      name: 'forward compression pointer → garbage',
      message: header([1, 0, 0, 0], [0xc0, 40, 0, 1, 0, 1]),
      want: 'garbage',
    },
    {
      name: 'reserved label type 0x40 → garbage',
      message: header([1, 0, 0, 0], [0x41, 0x61, 0, 0, 1, 0, 1]),
      want: 'garbage',
    },
    {
      name: 'label longer than the message → garbage',
      message: header([1, 0, 0, 0], [63, 0x61, 0x62]),
      want: 'garbage',
    },
    {
      name: 'TXT string longer than its RDATA → garbage',
      // answer: name pointer to the question, TXT IN, TTL 60, RDLENGTH 2, string length 9
      message: header(
        [1, 1, 0, 0],
        [...QSECTION, 0xc0, 12, 0, 16, 0, 1, 0, 0, 0, 60, 0, 2, 9, 0x61],
      ),
      want: 'garbage',
    },
    {
      name: 'answer cut inside its RDATA → garbage',
      message: response().subarray(0, response().length - 2),
      want: 'garbage',
    },
    {
      name: 'A record with RDLENGTH 2 → garbage (dns-packet would print "192.0.undefined…")',
      message: header([1, 1, 0, 0], [...QSECTION, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 2, 192, 0]),
      want: 'garbage',
    },
    {
      name: 'MX whose RDATA is longer than its RDLENGTH → garbage',
      // RDLENGTH 3 but preference (2) + a one-label name (3) follow
      message: header(
        [1, 1, 0, 0],
        [...QSECTION, 0xc0, 12, 0, 15, 0, 1, 0, 0, 0, 60, 0, 3, 0, 10, 1, 0x6d, 0],
      ),
      want: 'garbage',
    },
  ];
  for (const { name, message, want } of cases) {
    void it(name, () => assert.equal(matchResponse(message, ID, QUESTION).kind, want));
  }

  void it('never throws on 2000 random messages carrying our ID', () => {
    for (let i = 0; i < 2000; i++) {
      const message = Buffer.concat([Buffer.from([ID >> 8, ID & 255]), randomBytes(i % 80)]);
      const verdict = matchResponse(message, ID, QUESTION);
      assert.ok(['accept', 'ignore', 'garbage'].includes(verdict.kind));
    }
  });

  void it('never throws on every truncation of a valid reply', () => {
    const full = response();
    for (let end = 0; end < full.length; end++) {
      assert.notEqual(matchResponse(full.subarray(0, end), ID, QUESTION).kind, 'accept');
    }
  });
});
