// The geoip_batch tool through the SDK client over Streamable HTTP: the same
// answer as POST /batch for the same addresses, per-item errors inside
// structuredContent (valid against the tool's output schema), the limit as a
// tool error, and a schema without `type: [T, "null"]` (portable to strict
// clients: nullable written as anyOf, by src/mcp/portable-schema.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { get, startService, type TestService } from '../helpers/service.js';

let service: TestService;
let client: Client;

before(async () => {
  service = await startService({ env: { RATE_LIMIT_MAX: '100000', BATCH_MAX_ITEMS: '50' } });
  client = new Client({ name: 'ipintel-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`)));
});

after(async () => {
  await client.close();
  await service.close();
});

async function restBatch(ips: string[], vpn: boolean): Promise<unknown> {
  const res = await get(service.baseUrl, vpn ? '/batch?include=vpn' : '/batch', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ips),
  });
  return (res.body as { data: unknown }).data;
}

describe('MCP geoip_batch', () => {
  const ips = ['8.8.8.8', 'not an ip', '2a00:1450:4001:80e::200e', '8.8.8.8', '10.0.0.1'];

  for (const vpn of [false, true]) {
    it(`answers what POST /batch${vpn ? '?include=vpn' : ''} answers, errors per item`, async () => {
      const result = await client.callTool({ name: 'geoip_batch', arguments: { ips, vpn } });
      assert.notEqual(result.isError, true);
      assert.deepEqual(result.structuredContent, await restBatch(ips, vpn));
      const structured = result.structuredContent as {
        results: { query: string; error?: { code: string } }[];
        errors: number;
      };
      assert.equal(structured.errors, 1);
      assert.equal(structured.results[1]?.error?.code, 'INVALID_IP');
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      assert.equal(text.split('\n').length, ips.length);
      assert.match(text, /"not an ip": INVALID_IP/);
      if (vpn) assert.match(text, /hosting yes/);
    });
  }

  it('vpn defaults to false; an empty list is an empty batch', async () => {
    const result = await client.callTool({ name: 'geoip_batch', arguments: { ips: [] } });
    assert.deepEqual(result.structuredContent, { results: [], count: 0, errors: 0 });
  });

  it('more addresses than BATCH_MAX_ITEMS → a tool error naming the limit', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`);
    const result = await client.callTool({ name: 'geoip_batch', arguments: { ips: many } });
    assert.equal(result.isError, true);
    assert.match(
      (result.content as { text: string }[])[0]?.text ?? '',
      /^PAYLOAD_TOO_LARGE: .*limit is 50/,
    );
  });

  it('its schemas write no nullable as a type array', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'geoip_batch');
    assert.ok(tool);
    const text = JSON.stringify([tool.inputSchema, tool.outputSchema]);
    assert.doesNotMatch(text, /"type":\[/);
    assert.match(text, /"anyOf"/);
  });
});
