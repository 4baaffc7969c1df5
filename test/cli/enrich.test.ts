// The JSONL enricher works on bytes (the line never decoded, the record
// copied out of the tables, the line escaped by hand): every line must come
// out exactly as the string path writes it — JSON.stringify of the record and
// of the line as the UTF-8 decoder reads it (malformed bytes replaced).
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadEmbedded } from '../../src/lookups/geoip/compile/compile-sources.js';
import { GEOIP_FIELDS, createEnricher } from '../../src/cli/enrich.js';
import { writeJsonString } from '../../src/data/byte-writer.js';
import { enrichStream } from '../../src/cli/enrich-stream.js';
import { findAddress } from '../../src/cli/find-address.js';
import { GeoIpLookup } from '../../src/lookups/geoip/geoip.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';

let geoip: GeoIpLookup;
before(async () => {
  const embedded = await loadEmbedded(pino({ level: 'silent' }));
  geoip = new GeoIpLookup({ tables: { geoip: embedded.geoip, asn: embedded.asn } });
});

/** The output line as the string path builds it, from JSON.stringify alone. */
function expected(line: Buffer, vpn?: (text: string) => string): string {
  const text = line.toString('utf8');
  const ip = findAddress(text);
  const record: Record<string, unknown> =
    ip === null
      ? Object.fromEntries(GEOIP_FIELDS.map((f) => [f, null]))
      : (JSON.parse(geoip.json(ip)) as Record<string, unknown>);
  if (vpn) record['vpn'] = ip === null ? null : JSON.parse(vpn(ip.text));
  return `${JSON.stringify({ ...record, line: text })}\n`;
}

async function enrich(lines: Buffer[], vpn?: (text: string) => string): Promise<string[]> {
  const enricher = createEnricher('jsonl', {
    geoip,
    ...(vpn ? { vpn: (ip) => vpn(ip.text) } : {}),
  });
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const input = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
  // small chunks: lines cross chunk boundaries
  const pieces = [];
  for (let i = 0; i < input.length; i += 7) pieces.push(input.subarray(i, i + 7));
  await enrichStream(Readable.from(pieces), output, enricher, null);
  return Buffer.concat(chunks)
    .toString('utf8')
    .split(/(?<=\n)/);
}

const LINES: [string, Buffer][] = [
  [
    'an access log line with quotes',
    Buffer.from('8.8.8.8 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "curl/8"'),
  ],
  ['every escaped ASCII character', Buffer.from('1.1.1.1 "q" \\b \t tab \x01\x08\x0c\x1f\x7f end')],
  ['no address', Buffer.from('no address here "at all"')],
  ['UTF-8 beyond ASCII', Buffer.from('→ 9.9.9.9 ← café 日本 😀')],
  ['no address, beyond ASCII', Buffer.from('только текст')],
  [
    'malformed UTF-8',
    Buffer.from([0xff, 0x20, 0x31, 0x2e, 0x31, 0x2e, 0x31, 0x2e, 0x31, 0x20, 0xc3]),
  ],
  [
    'a UTF-16 surrogate as UTF-8 (CESU)',
    Buffer.from([0xed, 0xa0, 0x80, 0x20, 0x38, 0x2e, 0x38, 0x2e, 0x34, 0x2e, 0x34]),
  ],
  ['an IPv6 address', Buffer.from('[2001:4860:4860::8888]:443 "GET"')],
  ['a bogon', Buffer.from('10.0.0.1 private')],
  ['empty', Buffer.alloc(0)],
];

describe('enrich JSONL on bytes', () => {
  it('each kind of line comes out as JSON.stringify writes it', async () => {
    const out = await enrich(LINES.map(([, line]) => line));
    LINES.forEach(([name, line], i) => assert.equal(out[i], expected(line), name));
    assert.equal(out.length, LINES.length);
  });

  it('with --vpn, the VPN record goes between the GeoIP record and the line', async () => {
    const vpn = (text: string) => JSON.stringify({ ip: text, isVpn: false, note: 'ü' });
    const out = await enrich(
      LINES.map(([, line]) => line),
      vpn,
    );
    LINES.forEach(([name, line], i) => assert.equal(out[i], expected(line, vpn), name));
  });

  it('writeJsonString equals JSON.stringify on 2,000 random ASCII strings, and stops at a byte beyond ASCII', () => {
    const random = seededRandom();
    withSeed(random, () => {
      const out = Buffer.alloc(6 * 64 + 2);
      for (let n = 0; n < 2000; n++) {
        const bytes = Buffer.from(
          Array.from({ length: random.below(64) }, () => random.below(128)),
        );
        const end = writeJsonString(bytes, 0, bytes.length, out, 0);
        assert.equal(out.toString('latin1', 0, end), JSON.stringify(bytes.toString('latin1')));
      }
      assert.equal(writeJsonString(Buffer.from('abc é'), 0, 6, out, 0), -1);
    });
  });
});
