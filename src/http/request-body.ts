// Reading a JSON request body (POST /mcp, POST /batch), bounded: docs/api.md answers 413
// for a body over 1 MiB and 415 for anything but JSON.
import { Buffer } from 'node:buffer';
import { IncomingMessage } from 'node:http';
import { AppError } from '../kit/errors.js';
import type { Exchange } from './exchange.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readJsonBody(x: Exchange): Promise<string> {
  const req = x.req;
  // a request with a body is node:http's (the fast path reads none)
  if (!(req instanceof IncomingMessage)) throw new Error('a request body outside node:http');
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]*\+json$/.test(type)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The body must be JSON (Content-Type: application/json), not ${JSON.stringify(type || 'none')}.`,
    );
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  const tooLarge = (): AppError => {
    // the answer is sent while the rest of the body arrives: it is read and
    // discarded before the connection closes (./linger.ts)
    return new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
  };
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // events rather than for-await: leaving a for-await loop destroys the socket
  // before the 413 could be written
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
