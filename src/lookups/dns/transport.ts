// The I/O half of the stub resolver: one exchange = one fresh socket, one
// query, one verdict, and the socket and timer always released. Exchanges
// never reject; they report what happened and the resolver decides.
import { Buffer } from 'node:buffer';
import { createSocket, type RemoteInfo } from 'node:dgram';
import { connect as connectTcp, isIP } from 'node:net';
import type { DecodedPacket } from 'dns-packet';
import { parseIp } from '../../net/ip.js';
import { timeoutAfterIo } from '../../kit/timeout-after-io.js';
import type { Verdict } from './codec.js';

export interface DnsServer {
  readonly host: string;
  readonly port: number;
}

export type ExchangeOutcome =
  | { readonly kind: 'answer'; readonly packet: DecodedPacket }
  | { readonly kind: 'garbage'; readonly cause: Error }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'unreachable'; readonly cause: Error }
  | { readonly kind: 'aborted' };

export interface ExchangeOptions {
  readonly server: DnsServer;
  readonly query: Buffer;
  /** codec.matchResponse bound to this query's ID and question */
  readonly judge: (message: Buffer) => Verdict;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

export type Exchange = (options: ExchangeOptions) => Promise<ExchangeOutcome>;

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function sameAddress(a: string, b: string): boolean {
  // compare canonical forms: `::1` and `0:0::1` are one address
  return (parseIp(a)?.text ?? a) === (parseIp(b)?.text ?? b);
}

/**
 * Runs `start` with a `finish` that settles once: it clears the timer, drops
 * the abort listener and calls `release` (close the socket) before resolving.
 */
function settleOnce(
  options: ExchangeOptions,
  release: () => void,
  start: (finish: (outcome: ExchangeOutcome) => void) => void,
): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const onAbort = () => finish({ kind: 'aborted' });
    // judged after the turn's I/O: a reply already waiting in the socket of a
    // busy process is not lost to its own timeout
    const cancelTimeout = timeoutAfterIo(options.timeoutMs, () => finish({ kind: 'timeout' }));
    function finish(outcome: ExchangeOutcome): void {
      if (settled) return;
      settled = true;
      cancelTimeout();
      options.signal?.removeEventListener('abort', onAbort);
      try {
        release();
      } catch {
        // already closed by an error: nothing left to release
      }
      resolve(outcome);
    }
    if (options.signal?.aborted === true) {
      finish({ kind: 'aborted' });
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      start(finish);
    } catch (error) {
      finish({ kind: 'unreachable', cause: asError(error) });
    }
  });
}

/**
 * UDP (RFC 1035 §4.2.1). A new socket per query gives a fresh random source
 * port from the OS (RFC 5452 §4.5); connect() also makes the kernel drop
 * datagrams from other addresses, and the source is still checked here.
 */
export const udpExchange: Exchange = (options) => {
  const { server } = options;
  const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
  return settleOnce(
    options,
    () => socket.close(),
    (finish) => {
      socket.on('error', (error) => finish({ kind: 'unreachable', cause: error }));
      socket.on('message', (message: Buffer, from: RemoteInfo) => {
        if (from.port !== server.port || !sameAddress(from.address, server.host)) return;
        const verdict = options.judge(message);
        if (verdict.kind === 'accept') finish({ kind: 'answer', packet: verdict.packet });
        else if (verdict.kind === 'garbage') finish(verdict);
        // 'ignore': a stray or spoofed datagram; keep waiting for ours
      });
      // on failure the connect callback gets the error instead of an 'error' event
      socket.connect(server.port, server.host, (connectError?: Error) => {
        if (connectError) {
          finish({ kind: 'unreachable', cause: connectError });
          return;
        }
        try {
          socket.send(options.query, (error) => {
            if (error) finish({ kind: 'unreachable', cause: error });
          });
        } catch (error) {
          // the exchange ended (timeout, abort) while connecting: the socket is closed
          finish({ kind: 'unreachable', cause: asError(error) });
        }
      });
    },
  );
};

/** The 2-byte length prefix of every DNS message over TCP (RFC 1035 §4.2.2). */
const TCP_PREFIX = 2;

/** TCP (RFC 1035 §4.2.2, RFC 7766 §6.2): one query, one length-prefixed reply, then close. */
export const tcpExchange: Exchange = (options) => {
  const { server } = options;
  const socket = connectTcp({ host: server.host, port: server.port });
  return settleOnce(
    options,
    () => socket.destroy(),
    (finish) => {
      let received = Buffer.alloc(0);
      socket.setNoDelay(true);
      socket.on('error', (error) => finish({ kind: 'unreachable', cause: asError(error) }));
      socket.on('connect', () => {
        const prefix = Buffer.alloc(TCP_PREFIX);
        prefix.writeUInt16BE(options.query.length);
        socket.write(Buffer.concat([prefix, options.query]));
      });
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (received.length < TCP_PREFIX) return;
        const length = received.readUInt16BE(0);
        if (received.length < TCP_PREFIX + length) return;
        const verdict = options.judge(received.subarray(TCP_PREFIX, TCP_PREFIX + length));
        if (verdict.kind === 'accept') finish({ kind: 'answer', packet: verdict.packet });
        else if (verdict.kind === 'garbage') finish(verdict);
        // on our own connection a reply to another question is a broken server
        else finish({ kind: 'garbage', cause: new Error(`TCP reply rejected: ${verdict.reason}`) });
      });
      socket.on('close', () =>
        finish({ kind: 'garbage', cause: new Error('TCP connection closed before a full reply') }),
      );
    },
  );
};
