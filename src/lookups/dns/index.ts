// The DNS lookups behind GET /dns/:domain and GET /dns/:ip/reverse, built once
// from Config by the composition root: createDnsClient({ servers, timeoutMs }).
import { AppError } from '../../kit/errors.js';
import { parseIp, type Ip } from '../../net/ip.js';
import { minTtl, negativeTtl, presentRecords, relevantAnswers, type DnsRecord } from './present.js';
import { createResolver, type QueryFn, type ResolverOptions } from './resolver.js';
import type { RecordType } from './record-type.js';
import { reverseName } from './reverse-name.js';
import { confirmHostnames } from './forward-confirm.js';
import { systemServers } from './servers.js';
import type { DnsServer } from './transport.js';

export { parseDomain } from './domain-name.js';
export { parseRecordType, RECORD_TYPES, type RecordType } from './record-type.js';
export { reverseName } from './reverse-name.js';
export { systemServers } from './servers.js';
export type { DnsRecord } from './present.js';
export type { DnsResponse, QueryFn, QueryOptions } from './resolver.js';
export type { DnsServer } from './transport.js';

/** A lookup result plus what the cache needs to know about it. */
export interface Lookup<T> {
  readonly result: T;
  /**
   * Smallest TTL the server sent for the records shown (for an empty answer,
   * the SOA negative-caching TTL of RFC 2308 §5), or null when none was sent.
   * Cap the cache lifetime at it.
   */
  readonly minTtl: number | null;
}

export interface DnsRecordsResult {
  readonly records: DnsRecord[];
}

/** The reverse DNS result (docs/api.md, "Records"). */
export interface ReverseResult {
  readonly ip: string;
  readonly ptr: string;
  readonly hostnames: string[];
  /** those of `hostnames` whose A/AAAA records hold the address (forward-confirmed) */
  readonly confirmedHostnames: string[];
}

export interface DnsClient {
  /** Low level: NOERROR and NXDOMAIN are returned, every other outcome throws AppError. */
  readonly query: QueryFn;
  /** `domain` from parseDomain. NODATA → records []; NXDOMAIN → AppError NXDOMAIN. */
  lookupDns(domain: string, type: RecordType): Promise<Lookup<DnsRecordsResult>>;
  /** PTR names of `ip`; none (NODATA or NXDOMAIN) → hostnames [], still a success. */
  lookupReverse(ip: Ip | string): Promise<Lookup<ReverseResult>>;
}

export interface DnsClientOptions {
  /** Config.dnsServers: null means the system's resolvers */
  readonly servers: readonly DnsServer[] | null;
  /** Config.dnsTimeoutMs: the wait for one answer from one server */
  readonly timeoutMs: number;
  readonly transport?: ResolverOptions['transport'];
}

export function createDnsClient(options: DnsClientOptions): DnsClient {
  // made at the first lookup: reading the system's servers (resolv.conf,
  // through c-ares) is start-up time that only DNS answers need
  let resolver: QueryFn | undefined;
  const query: QueryFn = (name, type, queryOptions) =>
    (resolver ??= createResolver({
      servers: options.servers ?? systemServers(),
      timeoutMs: options.timeoutMs,
      transport: options.transport,
    }))(name, type, queryOptions);

  async function lookupDns(domain: string, type: RecordType): Promise<Lookup<DnsRecordsResult>> {
    const response = await query(domain, type);
    if (response.rcode === 'NXDOMAIN') {
      throw new AppError('NXDOMAIN', `The domain ${domain} does not exist`);
    }
    const records = presentRecords(response.answers, domain, type);
    return {
      result: { records },
      minTtl: records.length > 0 ? minTtl(records) : negativeTtl(response.authorities),
    };
  }

  async function lookupReverse(input: Ip | string): Promise<Lookup<ReverseResult>> {
    const ip = typeof input === 'string' ? parseIp(input) : input;
    if (ip === null)
      throw new AppError(
        'INVALID_IP',
        `"${typeof input === 'string' ? input : input.text}" is not an IP address`,
      );
    const ptr = reverseName(ip);
    const response = await query(ptr, 'PTR');
    // RFC 2317 classless delegation answers with a CNAME to the PTR's real home
    const answers = relevantAnswers(response.answers, ptr, 'PTR');
    const hostnames: string[] = [];
    const seen = new Set<string>();
    for (const answer of answers) {
      if (answer.type !== 'PTR') continue;
      const host = answer.data.replace(/\.$/, '');
      if (host === '' || seen.has(host.toLowerCase())) continue;
      seen.add(host.toLowerCase());
      hostnames.push(host);
    }
    // the forward lookups of the names, within one try's time of one server
    const confirmation = await confirmHostnames(query, ip, hostnames, options.timeoutMs);
    const ptrTtl = answers.length > 0 ? minTtl(answers) : negativeTtl(response.authorities);
    return {
      result: { ip: ip.text, ptr, hostnames, confirmedHostnames: confirmation.confirmed },
      // a confirmation lasts no longer than the records that made it
      minTtl:
        ptrTtl === null || confirmation.minTtl === null
          ? (ptrTtl ?? confirmation.minTtl)
          : Math.min(ptrTtl, confirmation.minTtl),
    };
  }

  return { query, lookupDns, lookupReverse };
}
