// The caller's address under each TRUST_PROXY mode, walking X-Forwarded-For
// from the socket outwards.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, type TrustProxy } from '../../src/config.js';
import { clientIp } from '../../src/http/client-ip.js';

function trust(value: string | undefined): TrustProxy {
  return loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy;
}

interface Row {
  name: string;
  trust: string | undefined;
  peer: string | undefined;
  xff: string | string[] | undefined;
  want: string | null;
}

const table: Row[] = [
  // none: the header means nothing
  {
    name: 'unset: the socket peer',
    trust: undefined,
    peer: '203.0.113.9',
    xff: '8.8.8.8',
    want: '203.0.113.9',
  },
  {
    name: 'false: the socket peer',
    trust: 'false',
    peer: '203.0.113.9',
    xff: '8.8.8.8',
    want: '203.0.113.9',
  },
  {
    name: '0 hops: the socket peer',
    trust: '0',
    peer: '203.0.113.9',
    xff: '8.8.8.8',
    want: '203.0.113.9',
  },
  {
    name: 'a dual-stack peer is unwrapped',
    trust: undefined,
    peer: '::ffff:127.0.0.1',
    xff: undefined,
    want: '127.0.0.1',
  },
  { name: 'an IPv6 peer', trust: undefined, peer: '::1', xff: undefined, want: '::1' },
  { name: 'no peer address at all', trust: undefined, peer: undefined, xff: undefined, want: null },
  { name: 'a garbled peer address', trust: 'true', peer: 'not-an-ip', xff: '8.8.8.8', want: null },
  // true: every hop trusted, the leftmost address is the client
  {
    name: 'true: the only entry',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '8.8.8.8',
    want: '8.8.8.8',
  },
  {
    name: 'true: the leftmost of a chain',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '8.8.8.8, 10.0.0.1, 10.0.0.2',
    want: '8.8.8.8',
  },
  {
    name: 'true: repeated headers are one list',
    trust: 'true',
    peer: '127.0.0.1',
    xff: ['8.8.8.8', '10.0.0.1'],
    want: '8.8.8.8',
  },
  {
    name: 'true: no header → the peer',
    trust: 'true',
    peer: '127.0.0.1',
    xff: undefined,
    want: '127.0.0.1',
  },
  {
    name: 'true: an empty header → the peer',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '',
    want: '127.0.0.1',
  },
  {
    name: 'true: empty items are skipped',
    trust: 'true',
    peer: '127.0.0.1',
    xff: ' , 8.8.8.8 ,, ',
    want: '8.8.8.8',
  },
  {
    name: 'true: a garbled entry ends the walk at the last good hop',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '1.1.1.1, garbage, 8.8.8.8',
    want: '8.8.8.8',
  },
  {
    name: 'true: a garbled only entry → the peer',
    trust: 'true',
    peer: '127.0.0.1',
    xff: 'unknown',
    want: '127.0.0.1',
  },
  {
    name: 'true: an entry with a leading zero is garbled',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '010.1.1.1',
    want: '127.0.0.1',
  },
  {
    name: 'true: IPv4 with a port',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '8.8.8.8:51234',
    want: '8.8.8.8',
  },
  {
    name: 'true: bracketed IPv6 with a port',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '[2001:4860::1]:443',
    want: '2001:4860::1',
  },
  {
    name: 'true: bracketed IPv6 without a port',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '[2001:4860::1]',
    want: '2001:4860::1',
  },
  {
    name: 'true: bare IPv6 is not mistaken for host:port',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '2001:4860::8888',
    want: '2001:4860::8888',
  },
  {
    name: 'true: mapped IPv4 is unwrapped',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '::ffff:8.8.4.4',
    want: '8.8.4.4',
  },
  {
    name: 'true: IPv6 is canonicalised',
    trust: 'true',
    peer: '127.0.0.1',
    xff: '2001:DB8:0:0:0:0:0:1',
    want: '2001:db8::1',
  },
  {
    name: 'true: a zone id is garbled',
    trust: 'true',
    peer: '127.0.0.1',
    xff: 'fe80::1%eth0',
    want: '127.0.0.1',
  },
  {
    name: 'true: 1000 characters of junk',
    trust: 'true',
    peer: '127.0.0.1',
    xff: 'x'.repeat(1000),
    want: '127.0.0.1',
  },
  // hops: the peer and the next n-1 entries are proxies
  {
    name: '1 hop: the rightmost entry',
    trust: '1',
    peer: '127.0.0.1',
    xff: '6.6.6.6, 8.8.8.8',
    want: '8.8.8.8',
  },
  {
    name: '2 hops: the second from the right',
    trust: '2',
    peer: '127.0.0.1',
    xff: '6.6.6.6, 8.8.8.8, 10.0.0.1',
    want: '8.8.8.8',
  },
  {
    name: '3 hops on a 2-entry chain: the leftmost',
    trust: '3',
    peer: '127.0.0.1',
    xff: '8.8.8.8, 10.0.0.1',
    want: '8.8.8.8',
  },
  {
    name: '1 hop: a spoofed leftmost entry is ignored',
    trust: '1',
    peer: '127.0.0.1',
    xff: '1.2.3.4, 9.9.9.9',
    want: '9.9.9.9',
  },
  // cidrs: hops are trusted while they lie in the listed networks
  {
    name: 'cidrs: a trusted peer → the entry it vouches for',
    trust: '127.0.0.0/8',
    peer: '127.0.0.1',
    xff: '8.8.8.8',
    want: '8.8.8.8',
  },
  {
    name: 'cidrs: an untrusted peer → the peer, header ignored',
    trust: '10.0.0.0/8',
    peer: '127.0.0.1',
    xff: '8.8.8.8',
    want: '127.0.0.1',
  },
  {
    name: 'cidrs: walk through trusted proxies, stop at the first untrusted',
    trust: '127.0.0.0/8, 10.0.0.0/8',
    peer: '127.0.0.1',
    xff: '6.6.6.6, 8.8.8.8, 10.1.1.1',
    want: '8.8.8.8',
  },
  {
    name: 'cidrs: all trusted → the leftmost',
    trust: '127.0.0.0/8,10.0.0.0/8',
    peer: '127.0.0.1',
    xff: '10.9.9.9, 10.1.1.1',
    want: '10.9.9.9',
  },
  {
    name: 'cidrs: IPv6 proxies',
    trust: '::1/128',
    peer: '::1',
    xff: '2606:4700::1111',
    want: '2606:4700::1111',
  },
  {
    name: 'cidrs: a dual-stack peer matches an IPv4 list',
    trust: '127.0.0.1',
    peer: '::ffff:127.0.0.1',
    xff: '8.8.8.8',
    want: '8.8.8.8',
  },
  {
    name: 'cidrs: a garbled entry stops the walk',
    trust: '127.0.0.0/8',
    peer: '127.0.0.1',
    xff: '8.8.8.8, bad',
    want: '127.0.0.1',
  },
];

describe('clientIp', () => {
  for (const row of table) {
    it(row.name, () => {
      assert.equal(clientIp(row.peer, row.xff, trust(row.trust))?.text ?? null, row.want);
    });
  }
});
