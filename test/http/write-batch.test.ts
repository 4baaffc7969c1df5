// Answers ended together after the event-loop turn: every request still gets
// its own answer, whole and in order on its connection, bytes as written.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { endWithTurn } from '../../src/http/write-batch.js';

let server: ReturnType<typeof createServer>;
let port: number;
before(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    // UTF-8 bytes sent as a latin1 string (one char a byte), as Exchange.send does
    const bytes = Buffer.from(JSON.stringify({ url, place: 'Zürich 東京' }));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    if (req.method === 'HEAD') endWithTurn(res, undefined);
    else if (url.startsWith('/buffer')) endWithTurn(res, bytes);
    else endWithTurn(res, bytes.toString('latin1'), 'latin1');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(
  path: string,
  agent: Agent,
  method = 'GET',
): Promise<{ status: number; body: Buffer }> {
  return getFrom(port, path, agent, method);
}

function getFrom(
  serverPort: number,
  path: string,
  agent: Agent,
  method = 'GET',
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: serverPort, path, agent, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('answers ended with the turn', () => {
  it('many requests at once on many connections: each gets its own whole answer, bytes exact', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 40 });
    const paths = Array.from({ length: 400 }, (_, i) => (i % 2 ? `/buffer/${i}` : `/text/${i}`));
    const answers = await Promise.all(paths.map((p) => get(p, agent)));
    agent.destroy();
    answers.forEach((a, i) => {
      assert.equal(a.status, 200);
      assert.deepEqual(JSON.parse(a.body.toString('utf8')), {
        url: paths[i],
        place: 'Zürich 東京',
      });
    });
  });

  it('an answer that cannot be ended is dropped alone: the others of its turn still go', async () => {
    const failing = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // a body res.end() refuses (it throws): that response is destroyed, not the batch
      if (req.url === '/bad') endWithTurn(res, 42 as unknown as string);
      else endWithTurn(res, `ok ${req.url}`);
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const failingPort = (failing.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 10 });
    try {
      const ask = (path: string) =>
        getFrom(failingPort, path, agent).then(
          (a) => a.body.toString(),
          (error: Error & { code?: string }) => error.code ?? error.message,
        );
      const answers = await Promise.all(['/a', '/bad', '/b', '/c'].map(ask));
      assert.deepEqual(answers, ['ok /a', 'ECONNRESET', 'ok /b', 'ok /c']);
    } finally {
      agent.destroy();
      failing.close();
    }
  });

  it('HEAD: the head only', async () => {
    const agent = new Agent({ keepAlive: true });
    const a = await get('/text/head', agent, 'HEAD');
    agent.destroy();
    assert.equal(a.status, 200);
    assert.equal(a.body.length, 0);
  });
});
