// The caller's address: the socket peer, unless TRUST_PROXY says which
// proxies in front of us may speak for the client through X-Forwarded-For.
// The chain is walked from the socket outwards (the rightmost entry was added
// by the proxy nearest to us), as proxy-addr does:
//  - all:   every hop is trusted, the leftmost address is the client;
//  - hops:  the socket peer and the next n-1 entries are proxies;
//  - cidrs: hops are trusted while they lie in the listed networks.
// Hop counts are safe only when clients cannot reach the service directly.
import type { TrustProxy } from '../config.js';
import { cidrContains } from '../net/cidr-match.js';
import { parseIp, type Ip } from '../net/ip.js';

export function clientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trust: TrustProxy,
): Ip | null {
  const peer = parseIp(socketAddress ?? '');
  if (peer === null || trust.kind === 'none' || forwardedFor === undefined) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  // outermost last: [peer, nearest proxy's client, …, original client]
  const chain = header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .reverse();
  let client = peer;
  for (let hop = 0; hop < chain.length; hop++) {
    if (!trusts(trust, client, hop)) break;
    const next = parseIp(stripPort(chain[hop] ?? ''));
    // a garbled entry ends the walk: the last trusted hop is the best we know
    if (next === null) break;
    client = next;
  }
  return client;
}

function trusts(trust: TrustProxy, address: Ip, hop: number): boolean {
  switch (trust.kind) {
    case 'all':
      return true;
    case 'hops':
      return hop < trust.hops;
    case 'cidrs':
      return trust.cidrs.some((cidr) => cidrContains(cidr, address));
    case 'none':
      return false;
  }
}

/** Some proxies append the client's port: "1.2.3.4:5678" or "[2001:db8::1]:443". */
function stripPort(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  return v4WithPort?.[1] ?? entry;
}
