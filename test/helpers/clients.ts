// Many clients at once against a rate-limited service, for the exactness
// tests of the shared limits (several workers, several instances on one
// Redis): each client sends its requests with a few in flight at a time, all
// clients together, and the statuses are tallied per client.
import type { GetOptions } from './http-get.js';

/** Client i, as the socket peer (127.0.0.<i+2>) or as X-Forwarded-For (198.51.100.<i+1>). */
export function clientAddress(i: number, via: 'peer' | 'forwarded'): GetOptions {
  return via === 'peer'
    ? { localAddress: `127.0.0.${i + 2}` }
    : { headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } };
}

export interface Tally {
  ok: number;
  limited: number;
  /** statuses other than 200 and 429 */
  other: number[];
}

/** `clients` clients each send `requests` requests, `inFlight` at a time; statuses per client. */
export async function sendConcurrently(
  clients: number,
  requests: number,
  inFlight: number,
  send: (client: number, request: number) => Promise<number>,
): Promise<Tally[]> {
  const tallies = Array.from({ length: clients }, (): Tally => ({ ok: 0, limited: 0, other: [] }));
  const client = async (c: number): Promise<void> => {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < requests) {
        const status = await send(c, next++);
        const tally = tallies[c]!;
        if (status === 200) tally.ok++;
        else if (status === 429) tally.limited++;
        else tally.other.push(status);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return tallies;
}
