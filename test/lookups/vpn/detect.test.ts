import assert from 'node:assert/strict';
import type { Ip } from '../../../src/net/ip.js';
import { describe, it } from 'node:test';
import { parseIp } from '../../../src/net/ip.js';
import { parseAsnClasses } from '../../../src/lookups/vpn/asn-classes.js';
import { detect, type AsnHint, type VpnDetection } from '../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../src/lookups/vpn/index/detection-index.js';
import type { FeedKind, StoredFeed } from '../../../src/lookups/vpn/feeds/feed-types.js';

function feed(id: string, kind: FeedKind, prefixes: string[]): StoredFeed {
  const at = '2024-05-20T00:00:00.000Z';
  return {
    format: 'ipintel-feed/1',
    feed: id,
    kind,
    url: 'http://127.0.0.1/',
    fetchedAt: at,
    publishedAt: null,
    prefixes,
  };
}

const classes = parseAsnClasses(
  [
    'asn,name,class,source',
    '16509,"Amazon.com, Inc.",hosting,x4bnet-datacenter',
    '9009,M247 Europe SRL,vpn,x4bnet-vpn',
    '21928,"T-Mobile USA, Inc.",mobile,manual:mobile-carrier',
    '3320,Deutsche Telekom AG,isp,manual:mixed-fixed-mobile-or-transit',
  ].join('\n'),
);
const index = new FeedIndex(
  [
    feed('aws', 'hosting', ['3.5.140.0/22', '2600:1f14::/35']),
    feed('cloudflare-v4', 'hosting', ['104.16.0.0/13']),
    feed('tor-exits', 'tor', ['185.220.101.1/32', '3.5.141.7/32']),
    feed('tor-exit-addresses', 'tor', ['185.220.101.1/32']),
    feed('x4b-vpn', 'vpn', ['146.70.117.0/24']),
  ],
  classes,
);

type Want = Partial<VpnDetection>;
const NONE = { isVpn: false, isProxy: false, isHosting: false, isMobile: false, isTor: false };
const ROWS: { name: string; ip: string; asn: AsnHint | null; want: Want }[] = [
  {
    name: 'inside a published cloud range → hosting, high',
    ip: '3.5.140.10',
    asn: { asn: 16509, org: 'Amazon.com, Inc.' },
    want: {
      ...NONE,
      isHosting: true,
      confidence: 'high',
      asn: 'AS16509',
      reasons: ['aws-published-range', 'asn:16509 hosting'],
    },
  },
  {
    name: 'Cloudflare range names the provider, not the v4/v6 feed',
    ip: '104.16.1.1',
    asn: { asn: 13335, org: 'Cloudflare, Inc.' },
    want: {
      ...NONE,
      isHosting: true,
      confidence: 'high',
      reasons: ['cloudflare-published-range', 'org-name:hosting'],
    },
  },
  {
    name: 'Tor exit in two Tor lists → proxy and tor, one reason',
    ip: '185.220.101.1',
    asn: { asn: 60729, org: 'Stiftung Erneuerbare Freiheit' },
    want: { ...NONE, isProxy: true, isTor: true, confidence: 'high', reasons: ['tor-exit'] },
  },
  {
    name: 'Tor exit inside AWS → tor, proxy and hosting',
    ip: '3.5.141.7',
    asn: { asn: 16509, org: 'Amazon.com, Inc.' },
    want: {
      ...NONE,
      isProxy: true,
      isTor: true,
      isHosting: true,
      confidence: 'high',
      reasons: ['aws-published-range', 'tor-exit', 'asn:16509 hosting'],
    },
  },
  {
    name: 'VPN provider list → vpn, high',
    ip: '146.70.117.20',
    asn: { asn: 9009, org: 'M247 Europe SRL' },
    want: {
      ...NONE,
      isVpn: true,
      isHosting: true,
      confidence: 'high',
      reasons: ['vpn-list:x4b-vpn', 'asn:9009 vpn'],
    },
  },
  {
    name: 'VPN ASN alone → vpn and hosting, medium',
    ip: '37.120.200.1',
    asn: { asn: 9009, org: 'M247 Europe SRL' },
    want: {
      ...NONE,
      isVpn: true,
      isHosting: true,
      confidence: 'medium',
      reasons: ['asn:9009 vpn'],
    },
  },
  {
    name: 'mobile ASN → mobile, medium',
    ip: '172.56.1.1',
    asn: { asn: 21928, org: 'T-Mobile USA, Inc.' },
    want: { ...NONE, isMobile: true, confidence: 'medium', reasons: ['asn:21928 mobile'] },
  },
  {
    // the name would say nothing anyway; the isp class also stops name rules
    name: 'mixed incumbent (isp class) → nothing, low',
    ip: '80.128.1.1',
    asn: { asn: 3320, org: 'Deutsche Telekom AG' },
    want: { ...NONE, confidence: 'low', reasons: ['asn:3320 isp'] },
  },
  {
    name: 'unclassified ASN, hosting name → hosting, low',
    ip: '45.141.215.1',
    asn: { asn: 64286, org: 'LogicWeb Hosting Inc.' },
    want: { ...NONE, isHosting: true, confidence: 'low', reasons: ['org-name:hosting'] },
  },
  {
    name: 'unclassified residential ISP with "Cloud" → nothing',
    ip: '103.1.1.1',
    asn: { asn: 135691, org: 'Cloudlasers Broadband' },
    want: { ...NONE, confidence: 'low', reasons: [] },
  },
  {
    name: 'no ASN, no list → nothing, low, asn and org null',
    ip: '81.2.69.142',
    asn: null,
    want: { ...NONE, confidence: 'low', asn: null, org: null, reasons: [] },
  },
  {
    name: 'IPv6 in a published range',
    ip: '2600:1f14::5',
    asn: { asn: 16509, org: null },
    want: {
      ...NONE,
      isHosting: true,
      confidence: 'high',
      org: null,
      reasons: ['aws-published-range', 'asn:16509 hosting'],
    },
  },
  {
    name: 'private address → nothing even with an ASN, reason special-purpose-address',
    ip: '10.0.0.1',
    asn: { asn: 16509, org: 'Amazon.com, Inc.' },
    want: { ...NONE, confidence: 'low', reasons: ['special-purpose-address'] },
  },
];

void describe('detect applies lists, then ASN class, then name rules', () => {
  for (const row of ROWS) {
    void it(row.name, () => {
      const ip = parseIp(row.ip);
      assert.ok(ip !== null);
      const got = detect(ip, () => row.asn, index);
      const picked = Object.fromEntries(
        Object.keys(row.want).map((k) => [k, got[k as keyof VpnDetection]]),
      );
      assert.deepEqual(picked, row.want);
      assert.equal(got.ip, ip.text);
    });
  }

  void it('asks for the ASN of public addresses only', () => {
    const asked: string[] = [];
    const asnOf = (ip: Ip) => {
      asked.push(ip.text);
      return { asn: 16509, org: 'Amazon.com, Inc.' };
    };
    for (const text of ['10.1.2.3', '::1', '192.0.2.1', '3.5.140.1']) {
      const ip = parseIp(text);
      assert.ok(ip !== null);
      detect(ip, asnOf, index);
    }
    assert.deepEqual(asked, ['3.5.140.1']);
  });
});
