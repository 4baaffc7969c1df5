// The MCP endpoint through the SDK's own client over Streamable HTTP, against
// a listening service whose network lookups go to loopback upstream servers:
// the handshake, the tool list, and every tool compared with the REST answer
// for the same input.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../../src/composition.js';
import { serve, startUpstreams, toolConformance, type Running, type Upstreams } from './setup.js';

let upstreams: Upstreams;
let service: Running;
let client: Client;
let transport: StreamableHTTPClientTransport;

before(async () => {
  upstreams = await startUpstreams();
  service = await serve(upstreams.env);
  client = new Client({ name: 'ipintel-test', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`));
  await client.connect(transport);
});

after(async () => {
  await client.close();
  await service.close();
  await upstreams.close();
});

describe('MCP over Streamable HTTP (SDK client)', () => {
  it('initializes: server name, version, tools capability, latest protocol', () => {
    assert.deepEqual(client.getServerVersion()?.name, 'ipintel');
    assert.equal(client.getServerVersion()?.version, VERSION);
    assert.ok(client.getServerCapabilities()?.tools);
    assert.match(client.getInstructions() ?? '', /geoip_lookup/);
    assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
    // stateless: no session to carry
    assert.equal(transport.sessionId, undefined);
  });

  it('answers ping', async () => {
    assert.deepEqual(await client.ping(), {});
  });

  toolConformance(() => ({ client, restBase: service.url }));

  it('reverse_dns says which names are forward-confirmed', async () => {
    const result = await client.callTool({ name: 'reverse_dns', arguments: { ip: '192.0.2.10' } });
    const content = result.content as { text: string }[];
    assert.equal(
      content[0]?.text,
      '192.0.2.10 (10.2.0.192.in-addr.arpa) → host.example.test (confirmed), alias.example.test (not confirmed)',
    );
    assert.deepEqual((result.structuredContent as Record<string, unknown>)['confirmedHostnames'], [
      'host.example.test',
    ]);
  });

  it('arguments outside the schema are an isError result the model can act on', async () => {
    const result = await client.callTool({
      name: 'dns_lookup',
      arguments: { domain: 'example.test', type: 'SOA' },
    });
    assert.equal(result.isError, true);
    const content = result.content as { text: string }[];
    assert.match(content[0]?.text ?? '', /type/);
  });

  it('an unknown tool is a -32602 protocol error', async () => {
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (error: unknown) => {
      assert.equal((error as { code?: unknown }).code, -32602);
      return true;
    });
  });
});
