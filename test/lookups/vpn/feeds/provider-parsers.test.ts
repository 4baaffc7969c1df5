// The VPN-provider, proxy and catalogue parsers on small documents written
// here in each publisher's shape (documentation addresses of RFC 5737/3849
// are special-purpose and would be dropped, so public-looking ones are used),
// each carrying the quirk its parser must handle; then broken input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeedFormatError, type FeedParser } from '../../../../src/lookups/vpn/feeds/feed-types.js';
import { parseMonosansJson } from '../../../../src/lookups/vpn/feeds/parse-proxy-lists.js';
import {
  parseAddressList,
  parseAirVpn,
  parseGluetun,
  parseIvpn,
  parseWindscribe,
} from '../../../../src/lookups/vpn/feeds/parse-vpn-catalogues.js';
import {
  parseMullvadApp,
  parseMullvadWeb,
  parseNordVpn,
  parsePia,
  parseProtonLogicals,
} from '../../../../src/lookups/vpn/feeds/parse-vpn-relays.js';

const j = (value: unknown) => JSON.stringify(value);

const GOOD: { name: string; parser: FeedParser; body: string; want: string[] }[] = [
  {
    name: 'Mullvad app: relay v4/v6, shadowsocks and QUIC extras; bridges and the 10.64.0.1 gateway left out',
    parser: parseMullvadApp,
    body: j({
      wireguard: {
        ipv4_gateway: '10.64.0.1',
        relays: [
          {
            ipv4_addr_in: '103.124.165.130',
            ipv6_addr_in: '2a04:27c0:0:c::f001',
            active: false,
            shadowsocks_extra_addr_in: ['103.204.123.136'],
            features: { quic: { addr_in: ['103.124.165.135', '2a04:27c0:0:c::f00a'] } },
          },
          { ipv4_addr_in: '10.64.0.1' },
        ],
      },
      bridge: { relays: [{ ipv4_addr_in: '146.70.141.154' }] },
    }),
    want: [
      '103.124.165.130/32',
      '103.124.165.135/32',
      '103.204.123.136/32',
      '2a04:27c0:0:c::f001/128',
      '2a04:27c0:0:c::f00a/128',
    ],
  },
  {
    name: 'Mullvad website: bridges (type "bridge", ipv6 null) left out',
    parser: parseMullvadWeb,
    body: j([
      { type: 'wireguard', ipv4_addr_in: '103.124.165.2', ipv6_addr_in: '2a04:27c0:0:e::f001' },
      {
        type: 'bridge',
        ipv4_addr_in: '146.70.141.154',
        ipv6_addr_in: null,
        ipv4_v2ray: '146.70.141.155',
      },
    ]),
    want: ['103.124.165.2/32', '2a04:27c0:0:e::f001/128'],
  },
  {
    name: 'NordVPN: station, ips[].ip.ip, empty-string ipv6_station',
    parser: parseNordVpn,
    body: j([
      {
        station: '82.102.19.137',
        ipv6_station: '',
        ips: [{ ip: { ip: '82.102.19.137', version: 4 } }],
      },
      { station: '82.102.19.138', ipv6_station: '2a0d:5600:1::2', ips: [] },
    ]),
    want: ['2a0d:5600:1::2/128', '82.102.19.137/32', '82.102.19.138/32'],
  },
  {
    name: 'PIA: JSON line, blank line, signature; meta (API) servers left out',
    parser: parsePia,
    body: `${j({
      groups: {},
      regions: [
        {
          servers: {
            wg: [{ ip: '86.107.104.251', cn: 'hongkong404' }],
            ovpnudp: [{ ip: '86.107.104.249', cn: 'hongkong404', van: true }],
            ikev2: [{ ip: '86.107.104.249', cn: 'hongkong404' }],
            meta: [{ ip: '86.107.104.241', cn: 'hongkong404' }],
          },
        },
      ],
    })}\n\nQmFzZTY0U2lnbmF0dXJl\nTm90SnNvbg==`,
    want: ['86.107.104.249/32', '86.107.104.251/32'],
  },
  {
    name: 'Proton VPN: ExitIP (what a site sees), not EntryIP',
    parser: parseProtonLogicals,
    body: j({
      LogicalServers: [
        { Servers: [{ EntryIP: '103.125.235.18', ExitIP: '103.125.235.21' }] },
        { Servers: [{ EntryIP: '103.125.235.18', ExitIP: '103.125.235.22' }] },
      ],
    }),
    want: ['103.125.235.21/32', '103.125.235.22/32'],
  },
  {
    name: 'Windscribe: ping_ip of every group, nodes ip/ip2/ip3 of free groups, host names ignored',
    parser: parseWindscribe,
    body: j({
      info: { revision: 1 },
      data: [
        {
          id: 65,
          groups: [
            { ping_ip: '198.44.137.19', wg_endpoint: 'dfw-86-wg.whiskergalaxy.com', pro: 1 },
            {
              ping_ip: '104.223.92.2',
              pro: 0,
              nodes: [{ ip: '104.223.92.3', ip2: '104.223.92.4', ip3: '104.223.92.5' }],
            },
          ],
        },
        { id: 66 },
      ],
    }),
    want: [
      '104.223.92.2/32',
      '104.223.92.3/32',
      '104.223.92.4/32',
      '104.223.92.5/32',
      '198.44.137.19/32',
    ],
  },
  {
    name: 'IVPN: host and v2ray; local_ip, ipv6.local_ip and config API hosts left out',
    parser: parseIvpn,
    body: j({
      wireguard: [
        {
          hosts: [
            {
              host: '149.22.83.100',
              v2ray: '149.22.83.102',
              local_ip: '172.16.0.1/12',
              ipv6: { local_ip: 'fd00:4956:504e:ffff::/96' },
            },
          ],
        },
      ],
      openvpn: [{ hosts: [{ host: '149.22.83.97' }] }],
      config: { api: { ips: ['198.50.177.220'] } },
    }),
    want: ['149.22.83.100/32', '149.22.83.102/32', '149.22.83.97/32'],
  },
  {
    name: 'AirVPN: servers[] only; the aggregates hold host names under the same keys',
    parser: parseAirVpn,
    body: j({
      servers: [
        {
          ip_v4_in1: '185.156.175.170',
          ip_v6_in1: '2001:ac8:28:8:c4d0:d13a:3b31:4d',
          ip_v4_in2: '185.156.175.172',
        },
      ],
      countries: [{ ip_v4_in1: 'at.vpn.airdns.org', ip_v6_in1: 'at.ipv6.vpn.airdns.org' }],
      planets: [{ ip_v4_in1: 'earth.vpn.airdns.org' }],
    }),
    want: ['185.156.175.170/32', '185.156.175.172/32', '2001:ac8:28:8:c4d0:d13a:3b31:4d/128'],
  },
  {
    name: 'TunnelBear list: # header, unsorted, no final newline',
    parser: parseAddressList,
    body: '#\n# tunnelbear_ips.txt\n#\n82.102.22.55\n172.234.87.143',
    want: ['172.234.87.143/32', '82.102.22.55/32'],
  },
  {
    name: 'monosans proxies.json: host and a differing exit_ip',
    parser: parseMonosansJson,
    body: j([
      { protocol: 'socks4', host: '144.31.222.106', port: 7890, exit_ip: '104.28.230.247' },
      { protocol: 'http', host: '85.8.47.198', port: 7080, exit_ip: '85.8.47.198' },
    ]),
    want: ['104.28.230.247/32', '144.31.222.106/32', '85.8.47.198/32'],
  },
];

void describe('provider, catalogue and proxy parsers', () => {
  for (const row of GOOD) {
    void it(row.name, () => {
      const parsed = row.parser(row.body, 'f');
      assert.deepEqual([...parsed.prefixes].sort(), row.want);
      assert.equal(parsed.providers, undefined, 'one-provider lists name no per-address provider');
    });
  }

  void it('gluetun: every address keeps its provider; "private internet access" is pia', () => {
    const body = j({
      version: 1,
      cyberghost: {
        version: 4,
        timestamp: 1662595200,
        servers: [{ hostname: '87-1-al.cg-dialup.net', ips: ['31.171.155.3', '31.171.155.4'] }],
      },
      'private internet access': {
        version: 1,
        timestamp: 1682032940,
        servers: [{ ips: ['86.107.104.249', '2a0d:5600:6::1'] }],
      },
      'perfect privacy': { version: 1, timestamp: 1, servers: [{ ips: ['31.171.155.3'] }] },
    });
    const parsed = parseGluetun(body, 'gluetun');
    const pairs = parsed.prefixes.map((p, i) => `${p} ${parsed.providers?.[i] ?? ''}`);
    assert.deepEqual(pairs, [
      '31.171.155.3/32 cyberghost', // the first provider naming an address keeps it
      '31.171.155.4/32 cyberghost',
      '86.107.104.249/32 pia',
      '2a0d:5600:6::1/128 pia',
    ]);
    assert.equal(parsed.publishedAt, '2023-04-20T23:22:20Z');
  });
});

const BROKEN: { name: string; parser: FeedParser; body: string; error: RegExp }[] = [
  {
    name: 'Mullvad app cut short',
    parser: parseMullvadApp,
    body: '{"wireguard":{"relays":[{"ipv4_addr_in":"103.1',
    error: /not valid JSON/,
  },
  {
    name: 'Mullvad app without wireguard',
    parser: parseMullvadApp,
    body: j({ bridge: {} }),
    error: /wireguard is not an object/,
  },
  {
    name: 'Mullvad website: an object, not an array',
    parser: parseMullvadWeb,
    body: j({ error: 'rate limited' }),
    error: /not an array/,
  },
  {
    name: 'NordVPN station a number',
    parser: parseNordVpn,
    body: j([{ station: 12345 }]),
    error: /\[0\]\.station: address is not a string/,
  },
  { name: 'NordVPN empty array', parser: parseNordVpn, body: '[]', error: /no prefixes/ },
  {
    name: 'PIA: signature only (the JSON line lost)',
    parser: parsePia,
    body: '\n\nQmFzZTY0',
    error: /not valid JSON/,
  },
  {
    name: 'PIA region servers not an object',
    parser: parsePia,
    body: j({ regions: [{ servers: [] }] }),
    error: /servers is not an object/,
  },
  {
    name: 'Proton: an error object',
    parser: parseProtonLogicals,
    body: j({ Code: 10013, Error: 'Invalid access token' }),
    error: /LogicalServers is missing/,
  },
  {
    name: 'Proton: every exit an internal address',
    parser: parseProtonLogicals,
    body: j({ LogicalServers: [{ Servers: [{ ExitIP: '10.2.0.1' }] }] }),
    error: /no prefixes/,
  },
  {
    name: 'Windscribe: a host name where an address belongs',
    parser: parseWindscribe,
    body: j({ data: [{ groups: [{ ping_ip: 'dfw.windscribe.com' }] }] }),
    error: /not an IP address/,
  },
  {
    name: 'IVPN without openvpn',
    parser: parseIvpn,
    body: j({ wireguard: [] }),
    error: /openvpn is missing/,
  },
  {
    name: 'AirVPN: servers empty',
    parser: parseAirVpn,
    body: j({ servers: [] }),
    error: /no prefixes/,
  },
  {
    name: 'TunnelBear: an HTML error page',
    parser: parseAddressList,
    body: '<html><body>rate limited</body></html>',
    error: /not an IP address/,
  },
  {
    name: 'TunnelBear: header only',
    parser: parseAddressList,
    body: '# tunnelbear_ips.txt\n#\n',
    error: /no prefixes/,
  },
  {
    name: 'gluetun: the 2026 manifest (no servers)',
    parser: parseGluetun,
    body: j({ mullvad: { filepath: '/gluetun/servers/mullvad.json' } }),
    error: /servers is missing/,
  },
  {
    name: 'gluetun: version only',
    parser: parseGluetun,
    body: j({ version: 1 }),
    error: /no provider with servers/,
  },
  {
    name: 'monosans: host missing',
    parser: parseMonosansJson,
    body: j([{ port: 80 }]),
    error: /host is missing/,
  },
  { name: 'monosans: empty', parser: parseMonosansJson, body: '', error: /not valid JSON/ },
];

void describe('provider parsers refuse broken input (the previous copy then stays)', () => {
  for (const row of BROKEN) {
    void it(row.name, () => {
      assert.throws(
        () => row.parser(row.body, 'f'),
        (e: unknown) => e instanceof FeedFormatError && row.error.test(e.message),
      );
    });
  }
});
