// A process that stalls (a long GC, a starved CPU) past a query's timeout
// while the reply already waits in its socket takes the reply: the timeout is
// judged after the turn's I/O (src/kit/timeout-after-io.ts). The server here
// answers, then holds the event loop past the client's timeout, so the reply
// is in the socket when the timer falls due.
import assert from 'node:assert/strict';
import { createSocket, type RemoteInfo } from 'node:dgram';
import { describe, it } from 'node:test';
import dnsPacket from 'dns-packet';
import { encodeQuery, matchResponse, type Question } from '../../../src/lookups/dns/codec.js';
import { udpExchange } from '../../../src/lookups/dns/transport.js';

const TIMEOUT_MS = 50;

function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('a DNS exchange after a stall', () => {
  it('takes the reply that arrived while the process stalled past its timeout', async () => {
    const server = createSocket('udp4');
    server.on('message', (message: Buffer, from: RemoteInfo) => {
      const query = dnsPacket.decode(message);
      const reply = dnsPacket.encode({
        type: 'response',
        id: query.id,
        flags: dnsPacket.RECURSION_DESIRED,
        questions: query.questions,
        answers: [{ type: 'A', name: 'stall.test', ttl: 60, data: '192.0.2.7' }],
      });
      server.send(reply, from.port, from.address, () => stall(TIMEOUT_MS * 3));
    });
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    try {
      const question: Question = { name: 'stall.test', type: 'A' };
      const outcome = await udpExchange({
        server: { host: '127.0.0.1', port: server.address().port },
        query: encodeQuery(7, question),
        judge: (message) => matchResponse(message, 7, question),
        timeoutMs: TIMEOUT_MS,
      });
      assert.equal(outcome.kind, 'answer');
    } finally {
      server.close();
    }
  });
});
