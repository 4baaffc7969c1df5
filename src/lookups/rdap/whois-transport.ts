// One port-43 exchange (RFC 3912): send the query and CRLF, read until the
// server closes, bounded in bytes and time. The connect function is passed
// in so tests (and a future proxy) decide where the bytes go.
import { Buffer } from 'node:buffer';
import type { Socket } from 'node:net';
import { AppError } from '../../kit/errors.js';

export type ConnectFn = (options: { host: string; port: number }) => Socket;

export interface WhoisExchange {
  connect: ConnectFn;
  host: string;
  port: number;
  query: string;
  timeoutMs: number;
  maxBytes: number;
}

export function queryWhois(exchange: WhoisExchange): Promise<string> {
  const where = `${exchange.host}:${exchange.port}`;
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    let socket: Socket | null = null;
    const finish = (error: AppError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      if (error === null) resolve(decodeWhois(Buffer.concat(chunks)));
      else reject(error);
    };
    const timer = setTimeout(() => {
      finish(new AppError('UPSTREAM_TIMEOUT', `The whois server ${where} did not answer in time.`));
    }, exchange.timeoutMs);
    try {
      socket = exchange.connect({ host: exchange.host, port: exchange.port });
    } catch (cause) {
      finish(new AppError('UPSTREAM_ERROR', `Could not connect to ${where}.`, { cause }));
      return;
    }
    socket.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > exchange.maxBytes) {
        finish(new AppError('UPSTREAM_ERROR', `The whois answer from ${where} is too large.`));
        return;
      }
      chunks.push(chunk);
    });
    socket.on('error', (cause) => {
      finish(new AppError('UPSTREAM_ERROR', `The whois server ${where} failed.`, { cause }));
    });
    socket.on('close', () => finish(null));
    // RFC 3912 §2: the query is one line ending in CRLF
    socket.write(`${exchange.query}\r\n`);
  });
}

/**
 * UTF-8 when the bytes are valid UTF-8, else Latin-1: LACNIC and older RIPE
 * objects carry ISO-8859-1 names ("Peña Pobre"; docs/api.md, "Records", Whois), and Latin-1
 * never fails, so an answer is always readable.
 */
export function decodeWhois(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString('latin1');
  }
}
