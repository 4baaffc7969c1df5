// One McpServer answers every POST /mcp of the process (src/mcp/mux-transport.ts):
// clients that use the same JSON-RPC ids at the same time each get their own
// answer, and `my_ip` reports each request's own caller.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serve, type Running } from './setup.js';

let service: Running;

before(async () => {
  service = await serve({ TRUST_PROXY: 'true', DNS_SERVERS: '127.0.0.1:9' });
});

after(() => service.close());

interface Rpc {
  id: string | number | null;
  result?: { structuredContent?: { ip?: string }; isError?: boolean };
  error?: { code: number };
}

async function call(body: object, headers: Record<string, string> = {}): Promise<Rpc> {
  const res = await fetch(`${service.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: new TextEncoder().encode(JSON.stringify(body)),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as Rpc;
}

const lookup = (id: number | string, name: string, args: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('POST /mcp: one server for every request', () => {
  it('concurrent calls with the same id each get their own answer, under their own id', async () => {
    const ips = Array.from({ length: 40 }, (_, i) => `8.8.${i}.${i + 1}`);
    const answers = await Promise.all(ips.map((ip) => call(lookup(1, 'geoip_lookup', { ip }))));
    assert.deepEqual(
      answers.map((a) => [a.id, a.result?.structuredContent?.ip]),
      ips.map((ip) => [1, ip]),
    );
  });

  it('my_ip answers each concurrent caller with its own address', async () => {
    const callers = Array.from({ length: 20 }, (_, i) => `203.0.113.${i + 1}`);
    const answers = await Promise.all(
      callers.map((ip) => call(lookup('me', 'my_ip', {}), { 'x-forwarded-for': ip })),
    );
    assert.deepEqual(
      answers.map((a) => a.result?.structuredContent?.ip),
      callers,
    );
  });
});
