// The lookups that go over the network: DNS records, reverse DNS, DNSBL
// blacklists and RDAP/whois. Each answer is cached for the lifetimes of docs/api.md ("Headers"), never
// longer than the data itself allows; failures are never cached.
import { z } from 'zod';
import { fromParser, ipParams } from '../api/params.js';
import {
  blacklistSchema,
  dnsRecordsSchema,
  reverseDnsSchema,
  whoisRecordSchema,
} from '../api/lookup-schemas.js';
import { defineHandler, Expiring, type CachePolicy } from '../http/route.js';
import { parseDomain, parseRecordType, type DnsClient } from '../lookups/dns/index.js';
import type { BlacklistChecker } from '../lookups/dnsbl/index.js';
import type { WhoisRecord } from '../lookups/rdap/index.js';
import type { Ip } from '../net/ip.js';

const HOUR = 3600;

/** How long each lookup's answers live (docs/api.md, "Headers"), shorter when the data says so. */
export const NETWORK_CACHE = {
  dns: { namespace: 'dns', ttlSeconds: HOUR, visibility: 'public' },
  reverse: { namespace: 'rdns', ttlSeconds: HOUR, visibility: 'public' },
  blacklist: { namespace: 'dnsbl', ttlSeconds: HOUR, visibility: 'public' },
  whois: { namespace: 'whois', ttlSeconds: 7 * 24 * HOUR, visibility: 'public' },
} as const satisfies Record<string, CachePolicy>;

/** An empty answer without an SOA to say how long it holds: keep it five minutes. */
const EMPTY_ANSWER_TTL = 300;

/** A blacklist result with a list that could not be asked: retry it soon. */
const PARTIAL_BLACKLIST_TTL = 60;

export interface NetworkLookups {
  dns: DnsClient;
  blacklist: BlacklistChecker;
  whois: { lookupWhois(ip: Ip): Promise<WhoisRecord> };
}

const domainParams = z.object({
  domain: z
    .string()
    .transform(fromParser(parseDomain))
    .meta({
      description:
        'A domain name; internationalised names are accepted and queried as punycode. A trailing dot is allowed.',
      examples: ['example.com', 'münchen.de'],
    }),
});

const typeQuery = z.object({
  type: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value, ctx) =>
      fromParser(parseRecordType)(Array.isArray(value) ? value.join(',') : (value ?? 'A'), ctx),
    )
    .meta({
      description: 'Record type: A (default), AAAA, MX, TXT, NS or CNAME; case-insensitive.',
    }),
});

export function networkHandlers(lookups: NetworkLookups) {
  return {
    dns: defineHandler({
      summary: 'DNS records of a domain',
      description:
        'Records with the TTL the server sent. A CNAME chain is reported record by record under each owner name. NODATA answers 200 with no records; a domain that does not exist answers 404 NXDOMAIN.',
      tags: ['DNS'],
      params: domainParams,
      query: typeQuery,
      response: dnsRecordsSchema,
      errors: ['INVALID_DOMAIN', 'INVALID_TYPE', 'NXDOMAIN', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT'],
      cacheKey: ({ params, query }) => `${query.type}:${params.domain}`,
      handle: async ({ params, query }) => {
        const { result, minTtl } = await lookups.dns.lookupDns(params.domain, query.type);
        return new Expiring(result, minTtl ?? EMPTY_ANSWER_TTL);
      },
    }),
    reverse: defineHandler({
      summary: 'Reverse DNS (PTR) of an address',
      description:
        'PTR names of an IPv4 (in-addr.arpa) or IPv6 (ip6.arpa) address; no PTR is a 200 with no hostnames.',
      tags: ['DNS'],
      params: ipParams,
      response: reverseDnsSchema,
      errors: ['INVALID_IP', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT'],
      cacheKey: ({ params }) => params.ip.text,
      handle: async ({ params }) => {
        const { result, minTtl } = await lookups.dns.lookupReverse(params.ip);
        return new Expiring(result, minTtl ?? EMPTY_ANSWER_TTL);
      },
    }),
    blacklist: defineHandler({
      summary: 'DNSBL blacklist check of an IPv4 address',
      description:
        'Asks every configured DNS blacklist in parallel. Only 127.0.0.x listing codes count; list error codes (e.g. Spamhaus 127.255.255.254 for public resolvers) are reported as an error of that source.',
      tags: ['Blacklist'],
      params: ipParams,
      response: blacklistSchema,
      errors: ['INVALID_IP', 'IPV4_ONLY'],
      cacheKey: ({ params }) => params.ip.text,
      handle: async ({ params }) => {
        const result = await lookups.blacklist.checkBlacklist(params.ip);
        const partial = result.sources.some((s) => s.error !== null);
        return new Expiring(result, partial ? PARTIAL_BLACKLIST_TTL : HOUR);
      },
    }),
    whois: defineHandler({
      summary: 'Registry (RDAP, whois fallback) record of an address',
      description:
        'The network block holding the address, from the registry found through the IANA RDAP bootstrap, with port-43 whois as the fallback. Special-purpose addresses answer 404 NOT_FOUND naming their range.',
      tags: ['Whois'],
      params: ipParams,
      response: whoisRecordSchema,
      errors: ['INVALID_IP', 'NOT_FOUND', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT'],
      cacheKey: ({ params }) => params.ip.text,
      handle: ({ params }) => lookups.whois.lookupWhois(params.ip),
    }),
  };
}
