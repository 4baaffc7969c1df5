// POST /mcp with a plain HTTP client, as curl or a hand-written agent would
// call it: no initialize, no Accept header, and every error case of
// docs/mcp.md — JSON-RPC errors for the protocol (400 for -32700/-32600, 200
// otherwise), the service envelope for the HTTP-level refusals (413, 415,
// 429, 405).
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '../../src/composition.js';
import { serve, TOOL_NAMES, type Running } from './setup.js';

let service: Running;

// nothing here goes to the network; a closed loopback port keeps it that way
const ENV = { DNS_SERVERS: '127.0.0.1:9', DNS_TIMEOUT_MS: '50', DNSBL_ZONES: 'bl.test' };

before(async () => {
  service = await serve(ENV);
});

after(async () => {
  await service.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function post(
  body: string | object,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  base = service.url,
): Promise<Answer> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers,
    // bytes, so that fetch adds no Content-Type of its own (a string would get text/plain)
    body: new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON (an event stream, or no body)
  }
  return { status: res.status, headers: res.headers, text, json };
}

type Rpc = {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const rpc = (answer: Answer): Rpc => answer.json as Rpc;

describe('POST /mcp: the plain curl form', () => {
  it('tools/list with only Content-Type (no initialize, no Accept) → 200 and the tools', async () => {
    const answer = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const { result, id, jsonrpc } = rpc(answer);
    assert.equal(jsonrpc, '2.0');
    assert.equal(id, 1);
    const tools = (result?.['tools'] ?? []) as { name: string }[];
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    // counted like every other request
    assert.ok(answer.headers.get('ratelimit-remaining') !== null);
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
  });

  for (const accept of ['*/*', 'application/json', 'application/json, text/event-stream']) {
    it(`Accept: ${accept} → 200 JSON`, async () => {
      const answer = await post(
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { 'content-type': 'application/json', accept },
      );
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(answer.json, { jsonrpc: '2.0', id: 2, result: {} });
    });
  }

  it('Accept: text/event-stream alone → the answer as an event stream', async () => {
    const answer = await post(
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { 'content-type': 'application/json', accept: 'text/event-stream' },
    );
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
    const data = /^data: (.*)$/m.exec(answer.text)?.[1];
    assert.deepEqual(JSON.parse(data ?? 'null'), { jsonrpc: '2.0', id: 3, result: {} });
  });

  it('tools/call without initialize → the record as structured content', async () => {
    const answer = await post({
      jsonrpc: '2.0',
      id: 'call-1',
      method: 'tools/call',
      params: { name: 'cidr_calculate', arguments: { range: '192.168.1.77/24' } },
    });
    assert.equal(answer.status, 200);
    const { id, result } = rpc(answer);
    assert.equal(id, 'call-1');
    assert.equal((result?.['structuredContent'] as { cidr?: string }).cidr, '192.168.1.0/24');
  });

  it('a tool failure is a result with isError and the REST code and message', async () => {
    const answer = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'geoip_lookup', arguments: { ip: '1.2.3' } },
    });
    assert.equal(answer.status, 200);
    const result = rpc(answer).result as {
      isError?: boolean;
      content: { text: string }[];
    };
    assert.equal(result.isError, true);
    assert.equal(result.content[0]?.text, 'INVALID_IP: "1.2.3" is not an IPv4 or IPv6 address.');
  });

  it('an empty ip is INVALID_IP, not the caller’s own record', async () => {
    const answer = await post({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'geoip_lookup', arguments: { ip: '' } },
    });
    const result = rpc(answer).result as { isError?: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.match(result.content[0]?.text ?? '', /^INVALID_IP: /);
  });

  it('ids are echoed exactly: strings, numbers, zero', async () => {
    for (const id of ['abc', '', 0, 42, -7, 'x'.repeat(200)]) {
      const answer = await post({ jsonrpc: '2.0', id, method: 'ping' });
      assert.equal(answer.status, 200);
      assert.equal(rpc(answer).id, id);
    }
  });
});

describe('POST /mcp: the MCP lifecycle', () => {
  const initialize = (protocolVersion: string) => ({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('initialize echoes a supported protocol version, with server info and tools capability', async () => {
    const answer = await post(initialize('2025-06-18'));
    assert.equal(answer.status, 200);
    const result = rpc(answer).result as {
      protocolVersion: string;
      serverInfo: { name: string; version: string };
      capabilities: { tools?: unknown };
    };
    assert.equal(result.protocolVersion, '2025-06-18');
    assert.equal(result.serverInfo.name, 'ipintel');
    assert.equal(result.serverInfo.version, VERSION);
    assert.ok(result.capabilities.tools);
    assert.equal(answer.headers.get('mcp-session-id'), null, 'stateless: no session');
  });

  it('initialize with an unknown version gets the latest the server speaks', async () => {
    const answer = await post(initialize('1999-01-01'));
    const result = rpc(answer).result as { protocolVersion: string };
    assert.equal(result.protocolVersion, '2025-11-25');
  });

  it('a notification → 202 with no body', async () => {
    const answer = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(answer.status, 202);
    assert.equal(answer.text, '');
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
  });

  it('a batch gets one answer per request, in an array', async () => {
    const answer = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'nope' } },
    ]);
    assert.equal(answer.status, 200);
    const answers = answer.json as Rpc[];
    assert.ok(Array.isArray(answers));
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 'b']);
    assert.equal(answers.find((a) => a.id === 'b')?.error?.code, -32602);
  });
});

describe('POST /mcp: JSON-RPC errors', () => {
  it('malformed JSON → 400, -32700, id null', async () => {
    const answer = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(answer.status, 400);
    assert.equal(rpc(answer).error?.code, -32700);
    assert.equal(rpc(answer).id, null);
  });

  it('an empty body → 400, -32700', async () => {
    const answer = await post('');
    assert.equal(answer.status, 400);
    assert.equal(rpc(answer).error?.code, -32700);
  });

  const invalid: { name: string; body: unknown; id: string | number | null }[] = [
    { name: 'a number', body: 42, id: null },
    { name: 'null', body: null, id: null },
    { name: 'a string', body: 'tools/list', id: null },
    { name: 'no jsonrpc member', body: { id: 7, method: 'ping' }, id: 7 },
    { name: 'jsonrpc 1.0', body: { jsonrpc: '1.0', id: 'v1', method: 'ping' }, id: 'v1' },
    { name: 'no method', body: { jsonrpc: '2.0', id: 8 }, id: 8 },
    { name: 'a numeric method', body: { jsonrpc: '2.0', id: 9, method: 5 }, id: 9 },
    { name: 'a fractional id', body: { jsonrpc: '2.0', id: 1.5, method: 'ping' }, id: null },
    { name: 'an empty batch', body: [], id: null },
    {
      name: 'a batch with a bad member',
      body: [{ jsonrpc: '2.0', id: 1, method: 'ping' }, 3],
      id: null,
    },
  ];
  for (const { name, body, id } of invalid) {
    it(`not a JSON-RPC request (${name}) → 400, -32600`, async () => {
      const answer = await post(JSON.stringify(body));
      assert.equal(answer.status, 400);
      assert.equal(rpc(answer).error?.code, -32600);
      assert.equal(rpc(answer).id, id);
    });
  }

  it('an unknown method → 200, -32601, id echoed', async () => {
    const answer = await post({ jsonrpc: '2.0', id: 'm', method: 'foo/bar' });
    assert.equal(answer.status, 200);
    assert.equal(rpc(answer).error?.code, -32601);
    assert.equal(rpc(answer).id, 'm');
  });

  const badParams: { name: string; method: string; params: unknown }[] = [
    { name: 'tools/call without a name', method: 'tools/call', params: {} },
    { name: 'tools/call of an unknown tool', method: 'tools/call', params: { name: 'nope' } },
    {
      name: 'tools/call with arguments not an object',
      method: 'tools/call',
      params: { name: 'my_ip', arguments: 3 },
    },
    { name: 'initialize without its params', method: 'initialize', params: {} },
    { name: 'tools/list with a numeric cursor', method: 'tools/list', params: { cursor: 5 } },
  ];
  for (const { name, method, params } of badParams) {
    it(`bad params (${name}) → 200, -32602`, async () => {
      const answer = await post({ jsonrpc: '2.0', id: 11, method, params });
      assert.equal(answer.status, 200);
      assert.equal(rpc(answer).error?.code, -32602, JSON.stringify(answer.json));
      assert.equal(rpc(answer).id, 11);
    });
  }
});

describe('/mcp: HTTP-level refusals use the service envelope', () => {
  it('a body over 1 MiB → 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { _meta: { pad: 'x'.repeat(1024 * 1024) } },
    });
    const answer = await post(body);
    assert.equal(answer.status, 413);
    assert.equal((answer.json as { error?: { code?: string } }).error?.code, 'PAYLOAD_TOO_LARGE');
  });

  it('a chunked body (no Content-Length) that passes 1 MiB → 413, and the connection closes', async () => {
    const { status, headers, text } = await new Promise<{
      status: number;
      headers: IncomingHttpHeaders;
      text: string;
    }>((resolve, reject) => {
      const req = request(`${service.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body }),
        );
      });
      // the server may close while chunks are still going out: that is the point
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
      });
      const chunk = 'x'.repeat(64 * 1024);
      req.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
      for (let i = 0; i < 20; i++) req.write(chunk); // 1.25 MiB
      req.end('"}}');
    });
    assert.equal(status, 413);
    assert.equal(headers['connection'], 'close');
    assert.equal(
      (JSON.parse(text) as { error?: { code?: string } }).error?.code,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('a body of just under 1 MiB is still read', async () => {
    const envelope = { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: '' } } };
    const pad = 1024 * 1024 - JSON.stringify(envelope).length;
    envelope.params._meta.pad = 'x'.repeat(pad);
    const answer = await post(envelope);
    assert.equal(answer.status, 200);
  });

  for (const type of ['text/plain', undefined]) {
    it(`Content-Type ${type ?? 'missing'} → 415 UNSUPPORTED_MEDIA_TYPE`, async () => {
      const answer = await post(
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        type === undefined ? {} : { 'content-type': type },
      );
      assert.equal(answer.status, 415);
      const body = answer.json as { error?: { code?: string; message?: string } };
      assert.equal(body.error?.code, 'UNSUPPORTED_MEDIA_TYPE');
    });
  }

  for (const method of ['GET', 'DELETE']) {
    it(`${method} /mcp → 405 METHOD_NOT_ALLOWED with Allow: POST`, async () => {
      const res = await fetch(`${service.url}/mcp`, {
        method,
        headers: { accept: 'text/event-stream' },
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      const body = (await res.json()) as { error?: { code?: string } };
      assert.equal(body.error?.code, 'METHOD_NOT_ALLOWED');
    });
  }

  it('over the rate limit → 429 RATE_LIMITED with Retry-After', async () => {
    const limited = await serve({ ...ENV, RATE_LIMIT_MAX: '2' });
    try {
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      assert.equal((await post(ping, undefined, limited.url)).status, 200);
      assert.equal((await post(ping, undefined, limited.url)).status, 200);
      const answer = await post(ping, undefined, limited.url);
      assert.equal(answer.status, 429);
      assert.ok(Number(answer.headers.get('retry-after')) > 0);
      assert.equal((answer.json as { error?: { code?: string } }).error?.code, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});
