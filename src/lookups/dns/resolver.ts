// The stub resolver's policy: which server to ask, when to retry, when to
// switch to TCP, and which outcome becomes which AppError. NOERROR and
// NXDOMAIN are both returned, because for reverse DNS and DNSBLs NXDOMAIN is
// an ordinary answer; the callers decide what it means.
import { randomInt } from 'node:crypto';
import type { Answer, DecodedPacket, RecordType as WireType } from 'dns-packet';
import { AppError } from '../../kit/errors.js';
import { encodeQuery, matchResponse, rcodeOf, type Question } from './codec.js';
import {
  tcpExchange,
  udpExchange,
  type DnsServer,
  type Exchange,
  type ExchangeOutcome,
} from './transport.js';

/** docs/configuration.md (DNS_TIMEOUT_MS): a lookup makes at most 3 tries in all, across the servers. */
export const MAX_TRIES = 3;

export interface DnsResponse {
  readonly rcode: 'NOERROR' | 'NXDOMAIN';
  readonly answers: readonly Answer[];
  readonly authorities: readonly Answer[];
}

export interface QueryOptions {
  /** aborting ends the lookup at once with UPSTREAM_TIMEOUT (used for a shared deadline) */
  readonly signal?: AbortSignal | undefined;
  /** fewer tries than MAX_TRIES, e.g. 1 for a best-effort query */
  readonly maxTries?: number | undefined;
}

export type QueryFn = (
  name: string,
  type: WireType,
  options?: QueryOptions,
) => Promise<DnsResponse>;

export interface ResolverOptions {
  readonly servers: readonly DnsServer[];
  readonly timeoutMs: number;
  /** the real sockets unless a test passes others */
  readonly transport?: { readonly udp: Exchange; readonly tcp: Exchange } | undefined;
}

function upstreamError(message: string, cause: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', message, { cause });
}

function describe(server: DnsServer): string {
  return server.host.includes(':')
    ? `[${server.host}]:${server.port}`
    : `${server.host}:${server.port}`;
}

/**
 * Builds query(name, type). Policy (tries and timeouts: docs/configuration.md):
 * - try 1 goes to servers[0]; a timeout, SERVFAIL or unreachable server moves
 *   to the next server (round robin), at most MAX_TRIES tries in all;
 * - a truncated UDP reply (TC, RFC 1035 §4.1.1) is asked again over TCP of
 *   the same server (RFC 7766 §5), and that TCP exchange counts as a try, so
 *   a lookup always ends within MAX_TRIES × timeoutMs;
 * - REFUSED, FORMERR, NOTIMP…, or a reply that cannot be decoded, end the lookup
 *   with UPSTREAM_ERROR at once: another try would not help.
 */
export function createResolver(options: ResolverOptions): QueryFn {
  const { servers, timeoutMs } = options;
  const udp = options.transport?.udp ?? udpExchange;
  const tcp = options.transport?.tcp ?? tcpExchange;

  return async function query(name, type, queryOptions = {}) {
    if (servers.length === 0) {
      throw upstreamError('No DNS server is configured', new Error('empty server list'));
    }
    // dns-packet would encode an oversized label or name into a corrupt query (RFC 1035 §2.3.4)
    if (name.length > 253 || name.split('.').some((l) => l.length === 0 || l.length > 63)) {
      throw new AppError('INVALID_DOMAIN', `"${name.slice(0, 80)}" cannot be asked in DNS`);
    }
    const question: Question = { name, type };
    const tries = Math.max(1, Math.min(MAX_TRIES, queryOptions.maxTries ?? MAX_TRIES));
    const failures: string[] = [];
    // 504 only when no server got as far as answering; otherwise the failure is 502
    let onlyTimeouts = true;
    let serverIndex = 0;
    let overTcp = false;

    for (let attempt = 0; attempt < tries; attempt++) {
      const server = servers[serverIndex % servers.length] as DnsServer;
      const id = randomInt(0, 65536); // RFC 5452 §4.3: unpredictable ID
      const outcome: ExchangeOutcome = await (overTcp ? tcp : udp)({
        server,
        query: encodeQuery(id, question),
        judge: (message) => matchResponse(message, id, question),
        timeoutMs,
        signal: queryOptions.signal,
      });
      const where = `${describe(server)} ${overTcp ? 'TCP' : 'UDP'}`;
      switch (outcome.kind) {
        case 'aborted':
          throw new AppError('UPSTREAM_TIMEOUT', `DNS lookup of ${name} ran out of time`);
        case 'garbage':
          throw upstreamError(
            `The DNS server sent an undecodable reply for ${name}`,
            outcome.cause,
          );
        case 'timeout':
          failures.push(`${where}: timeout`);
          break;
        case 'unreachable':
          onlyTimeouts = false;
          failures.push(`${where}: ${outcome.cause.message}`);
          break;
        case 'answer': {
          const done = settle(outcome.packet, name, overTcp);
          if (done === 'truncated') {
            failures.push(`${where}: truncated`);
            // no try left for TCP: the server did answer, just not usably
            if (attempt === tries - 1) onlyTimeouts = false;
            overTcp = true;
            continue; // same server, now over TCP
          }
          if (done !== 'servfail') return done;
          onlyTimeouts = false;
          failures.push(`${where}: SERVFAIL`);
          break;
        }
      }
      overTcp = false;
      serverIndex++;
    }
    const cause = new Error(failures.join('; '));
    if (!onlyTimeouts) throw upstreamError(`The DNS server failed to answer for ${name}`, cause);
    throw new AppError('UPSTREAM_TIMEOUT', `The DNS server did not answer in time for ${name}`, {
      cause,
    });
  };
}

/** One decoded reply → a result, a reason to retry, or an AppError. */
function settle(
  packet: DecodedPacket,
  name: string,
  overTcp: boolean,
): DnsResponse | 'truncated' | 'servfail' {
  const rcode = rcodeOf(packet);
  // a TC reply's answer section may be partial or empty: never use it (RFC 2181 §9)
  if (packet.flag_tc && !overTcp) return 'truncated';
  if (rcode === 'SERVFAIL') return 'servfail';
  if (rcode === 'NOERROR' || rcode === 'NXDOMAIN') {
    return {
      rcode,
      answers: packet.answers ?? [],
      authorities: packet.authorities ?? [],
    };
  }
  throw upstreamError(`The DNS server answered ${rcode} for ${name}`, new Error(`rcode ${rcode}`));
}
