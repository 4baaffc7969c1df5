// The watchers' Markdown tables and the community ASN lists, on small
// documents written here in each publisher's shape (padding, extra cells,
// multi-address cells, quoted CSV numbers, comments), then broken input. The
// real copies are replayed by published-feeds.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeedFormatError } from '../../../../src/lookups/vpn/feeds/feed-types.js';
import { deserialiseFeed, serialiseFeed } from '../../../../src/lookups/vpn/feeds/feed-store.js';
import { parseAsnList } from '../../../../src/lookups/vpn/feeds/parse-asn-lists.js';
import {
  parseAirVpnWatch,
  parseAzireVpnWatch,
  parseMarkdownTable,
  parseMullvadWatch,
  parsePiaWatch,
  parseWindscribeWatch,
} from '../../../../src/lookups/vpn/feeds/parse-watchers.js';
import { storedFeed } from '../../../helpers/vpn-feeds.js';

const AIRVPN = `# AirVPN servers

| Public Name | Country | IPv4 Addresses | IPv6 Addresses | Health |
|-------------|---------|---------------|---------------|--------|
| Achernar | ch | 185.156.175.170, 185.156.175.172 | 2001:ac8:28:8::4d, 2001:ac8:28:8::e8ed | ok |
| Adhara   | ca | 184.75.221.162, 184.75.221.167   | 2606:6080:1001:9::1                     | warning |

updated hourly`;

const MULLVAD = `| Hostname | IPv4 Address | IPv6 Address | Active | Type |
|---|---|---|---|---|
| al-tia-wg-003 | 103.124.165.130 | 2a04:27c0:0:c::f001 | true | wireguard |
| se-got-br-001 | 185.213.154.117 |  | true | bridge |
| us-bos-wg-002 | 43.225.189.131 | 2606:6080:1001:9::2 | false | wireguard |
`;

const PIA = `| Region Name | Country | Protocol | Server IP | CN | VAN |
|-------------|---------|----------|-----------|----|-----|
| US New York | US | ovpnudp | 151.240.205.136 | newyork444 | true |
| US New York | US | meta | 151.240.205.1 | newyork444 | false |
| US New York | US | wg | 151.240.205.140 | newyork444 | false |
`;

const WINDSCRIBE = `| Server Name | Ping IP | IP | IP2 | IP3 | Node Health |
|---|---|---|---|---|---|
| US Central | 198.44.137.19 | 198.44.137.19 | 198.44.137.20 | 198.44.137.21 | 4 |  |  |
`;

const AZIRE = `| NAME | POOL | IP(s) |
|------|------|-------|
| ar-bue | ar-bue.azirevpn.net | 200.110.149.179 |
| gb-mnc | gb-mnc.azirevpn.net | 194.36.25.40 194.36.25.41 |
`;

void describe('watcher tables', () => {
  void it('AirVPN: ", "-joined entry addresses of both families, text around the table ignored', () => {
    assert.deepEqual(parseAirVpnWatch(AIRVPN, 'airvpnwatch').prefixes, [
      '185.156.175.170/32',
      '185.156.175.172/32',
      '2001:ac8:28:8::4d/128',
      '2001:ac8:28:8::e8ed/128',
      '184.75.221.162/32',
      '184.75.221.167/32',
      '2606:6080:1001:9::1/128',
    ]);
  });

  void it('Mullvad: WireGuard relays (active or not), not bridges; an empty IPv6 cell is none', () => {
    assert.deepEqual(parseMullvadWatch(MULLVAD, 'mullvadwatch').prefixes, [
      '103.124.165.130/32',
      '2a04:27c0:0:c::f001/128',
      '43.225.189.131/32',
      '2606:6080:1001:9::2/128',
    ]);
  });

  void it("PIA: the connection protocols' servers, not the meta API hosts", () => {
    assert.deepEqual(parsePiaWatch(PIA, 'piawatch').prefixes, [
      '151.240.205.136/32',
      '151.240.205.140/32',
    ]);
  });

  void it('Windscribe: more cells than the header; the same address twice kept once', () => {
    assert.deepEqual(parseWindscribeWatch(WINDSCRIBE, 'windscribewatch').prefixes, [
      '198.44.137.19/32',
      '198.44.137.20/32',
      '198.44.137.21/32',
    ]);
  });

  void it('AzireVPN: space-joined DNS answers', () => {
    assert.deepEqual(parseAzireVpnWatch(AZIRE, 'azirevpnwatch').prefixes, [
      '200.110.149.179/32',
      '194.36.25.40/32',
      '194.36.25.41/32',
    ]);
  });

  void it("a resolver's error text in one of many rows skips that row; in many, refuses the table", () => {
    const rows = Array.from({ length: 150 }, (_, i) => `| x-${i} | x.azirevpn.net | 45.1.${i}.1 |`);
    const one = [...AZIRE.trim().split('\n'), ...rows, '| es-mad | p | ;; connection timed out |'];
    const parsed = parseAzireVpnWatch(one.join('\n'), 'azirevpnwatch');
    assert.equal(parsed.skippedRows, 1);
    assert.equal(parsed.prefixes.length, 153);
    const many = [
      ...AZIRE.trim().split('\n'),
      '| a | p | ;; timed out |',
      '| b | p | no servers |',
    ];
    assert.throws(() => parseAzireVpnWatch(many.join('\n'), 'azirevpnwatch'), FeedFormatError);
  });

  void it('broken tables are refused (the previous copy then stays)', () => {
    const broken: [string, string][] = [
      ['an HTML error page', '<html><body>502 Bad Gateway</body></html>'],
      ['an empty body', ''],
      ['no separator line', '| Server IP | Protocol |\n| 1.2.3.4 | wg |'],
      ['a header without rows', PIA.split('\n').slice(0, 2).join('\n')],
      ['a row cut short', `${PIA.trim()}\n| US Texas | US | wg`],
      ['a renamed column', PIA.replace('Server IP', 'Address')],
    ];
    for (const [what, body] of broken) {
      assert.throws(() => parsePiaWatch(body, 'piawatch'), FeedFormatError, what);
    }
  });

  void it('parseMarkdownTable trims padded cells and drops the outer pipes only', () => {
    const table = parseMarkdownTable('|  a  | b |\n|:--|--:|\n|  1  |  |\n', 'x');
    assert.deepEqual([table.header, table.rows], [['a', 'b'], [['1', '']]]);
  });
});

void describe('ASN lists', () => {
  void it('X4B comments, NullifiedCode free text without a final newline, brianhama CSV', () => {
    const x4b = 'AS9009 # M247, GB (NordVPN)\nAS209854 # Surfshark\n# a comment line\n\n';
    assert.deepEqual(parseAsnList(x4b, 'asn-x4b-vpn').asns, [9009, 209854]);
    const nullified = 'AS212238 Datacamp Limited\nAS209103 Proton AG \nAS9009 M247 Europe SRL';
    assert.deepEqual(parseAsnList(nullified, 'asn-nullified-vpn').asns, [9009, 209103, 212238]);
    const csv =
      'ASN,Entity\n198375,"INULOGIC SARL, FR"\n51447, "RootLayer Web Services Ltd, NL"\n"20248","Take 2 Hosting, Inc."\n198375,"INULOGIC SARL, FR"\n';
    const parsed = parseAsnList(csv, 'asn-brianhama');
    assert.deepEqual([parsed.asns, parsed.prefixes], [[20248, 51447, 198375], []]);
  });

  void it('a line that is no AS number refuses the whole list', () => {
    for (const body of [
      '',
      '# only a comment\n',
      '<html>404</html>',
      'AS9009 x\nASN9 y',
      'AS0 zero',
      'AS4294967296 too big',
    ]) {
      assert.throws(() => parseAsnList(body, 'asn-x4b-vpn'), FeedFormatError, body);
    }
  });

  void it('stored with its AS numbers and read back; an ASN list without numbers is refused', () => {
    const feed = storedFeed('asn-x4b-vpn', 'hosting', [], { asns: [9009, 209854] });
    assert.deepEqual(
      deserialiseFeed(serialiseFeed(feed), 'asn-x4b-vpn.feed.json').asns,
      [9009, 209854],
    );
    const none = serialiseFeed(storedFeed('asn-x4b-vpn', 'hosting', []));
    assert.throws(() => deserialiseFeed(none, 'x.feed.json'), FeedFormatError);
    const bad = serialiseFeed(storedFeed('asn-x4b-vpn', 'hosting', [], { asns: [0] }));
    assert.throws(() => deserialiseFeed(bad, 'x.feed.json'), FeedFormatError);
  });
});
