// The /whois/:ip lookup: RDAP first (RFC 9082/9083), port-43 whois when RDAP
// cannot answer. Error semantics (docs/api.md "Errors" codes):
//   - special-purpose address → NOT_FOUND, before any network call;
//   - the registry says it has no record (RDAP 404) → NOT_FOUND, no fallback;
//   - RDAP 5xx/429/garbage/unreachable/timeout → whois is tried; if whois
//     fails too: UPSTREAM_TIMEOUT when neither answered in time, else
//     UPSTREAM_ERROR (whois "no match" → NOT_FOUND).
import { connect as netConnect } from 'node:net';
import { AppError } from '../../kit/errors.js';
import type { Ip } from '../../net/ip.js';
import { findRegistry, snapshotBootstrap, type BootstrapTable } from './bootstrap.js';
import type { FetchFn } from './rdap-http.js';
import { lookupRdap } from './rdap-lookup.js';
import { REGISTRIES } from './registries.js';
import { assertRegistrable } from './special-ranges.js';
import type { ParsedNetwork, Rir, WhoisRecord } from './types.js';
import { lookupPort43 } from './whois-lookup.js';
import type { ConnectFn } from './whois-transport.js';

export type { WhoisRecord, WhoisEvent, Rir } from './types.js';
export type { BootstrapTable } from './bootstrap.js';
export type { FetchFn } from './rdap-http.js';
export type { ConnectFn } from './whois-transport.js';
export { refreshBootstrap, snapshotBootstrap, IANA_BOOTSTRAP_URLS } from './bootstrap.js';

export interface WhoisClientOptions {
  /** RDAP_BASE_URL (ends with "/"): every query goes to `${base}ip/<ip>` */
  rdapBaseUrl: string | null;
  /** bounds the whole RDAP part, redirects and the entity request included */
  rdapTimeoutMs: number;
  /** WHOIS_SERVER: used for the port-43 fallback instead of the registry's host */
  whoisServer: { host: string; port: number } | null;
  /** bounds the whole port-43 part, the referral included */
  whoisTimeoutMs: number;
  fetch?: FetchFn;
  connect?: ConnectFn;
  now?: () => number;
  /** defaults to the snapshot shipped with the project */
  bootstrap?: BootstrapTable;
}

export interface WhoisClient {
  lookupWhois(ip: Ip): Promise<WhoisRecord>;
  /** installs a table from refreshBootstrap(); lookups in flight keep the old one */
  setBootstrap(table: BootstrapTable): void;
}

export function createWhoisClient(options: WhoisClientOptions): WhoisClient {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const connect = options.connect ?? ((target) => netConnect(target));
  const now = options.now ?? Date.now;
  let table = options.bootstrap ?? snapshotBootstrap();

  async function lookupWhois(ip: Ip): Promise<WhoisRecord> {
    assertRegistrable(ip);
    const entry = findRegistry(table, ip);
    const base = options.rdapBaseUrl ?? entry?.baseUrl ?? null;
    let rdapError: AppError | null = null;
    let port43: string | null = null;
    if (base !== null) {
      const rdap = await lookupRdap(`${base}ip/${ip.text}`, {
        fetch: fetchFn,
        timeoutMs: options.rdapTimeoutMs,
      });
      if (rdap.ok) return toRecord(ip, rdap.network, rdap.registry, 'rdap');
      if (rdap.error.code === 'NOT_FOUND') throw rdap.error;
      rdapError = rdap.error;
      port43 = rdap.port43;
    }
    const rir = entry?.rir ?? null;
    try {
      const whois = await lookupPort43(ip, {
        connect,
        server: options.whoisServer,
        registryHost: port43 ?? (rir === null ? null : REGISTRIES[rir].whoisHost),
        expectedRir: rir,
        timeoutMs: options.whoisTimeoutMs,
        now,
      });
      return toRecord(ip, whois.network, whois.registry, 'whois');
    } catch (error) {
      throw bothFailed(rdapError, error);
    }
  }

  return {
    lookupWhois,
    setBootstrap(next) {
      table = next;
    },
  };
}

function toRecord(
  ip: Ip,
  network: ParsedNetwork,
  registry: Rir | null,
  source: 'rdap' | 'whois',
): WhoisRecord {
  const { name, handle, startAddress, endAddress, country, registrant, events } = network;
  return {
    ip: ip.text,
    name,
    handle,
    startAddress,
    endAddress,
    country,
    registrant,
    events,
    cidrs: network.cidrs,
    type: network.type,
    parentHandle: network.parentHandle,
    registry,
    source,
    abuseEmail: network.abuseEmail,
  };
}

function bothFailed(rdapError: AppError | null, whoisError: unknown): unknown {
  if (!(whoisError instanceof AppError)) return whoisError;
  if (rdapError === null || whoisError.code === 'NOT_FOUND') return whoisError;
  const cause = new AggregateError([rdapError, whoisError], 'RDAP and whois both failed');
  const message = `${rdapError.message} The whois fallback failed too: ${whoisError.message}`;
  const timedOut = rdapError.code === 'UPSTREAM_TIMEOUT' && whoisError.code === 'UPSTREAM_TIMEOUT';
  return new AppError(timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_ERROR', message, { cause });
}
export { BOOTSTRAP_FILE, readBootstrapFile, writeBootstrapFile } from './bootstrap-file.js';
