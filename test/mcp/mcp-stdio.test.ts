// The stdio server (scripts/mcp-stdio.ts) as a desktop client runs it: the
// SDK's StdioClientTransport spawns it with its configuration in the
// environment, pointing at loopback upstream servers; every tool must answer
// what the REST API of a service with the same configuration answers. And
// stdout carries nothing but protocol messages.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { VERSION } from '../../src/composition.js';
import { serve, startUpstreams, toolConformance, type Running, type Upstreams } from './setup.js';
import { entryArgs } from '../helpers/entry.js';

const ENTRY = fileURLToPath(new URL('../../scripts/mcp-stdio.ts', import.meta.url));
const ARGS = entryArgs(ENTRY);

let upstreams: Upstreams;
let service: Running;
let client: Client;
let stderr = '';

before(async () => {
  upstreams = await startUpstreams();
  service = await serve(upstreams.env);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ARGS,
    env: { ...upstreams.env, LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  client = new Client({ name: 'ipintel-stdio-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client.close();
  await service.close();
  await upstreams.close();
});

describe('MCP over stdio (SDK client spawning the entry)', () => {
  it('initializes as ipintel with the package version', () => {
    assert.equal(client.getServerVersion()?.name, 'ipintel');
    assert.equal(client.getServerVersion()?.version, VERSION);
  });

  toolConformance(() => ({ client, restBase: service.url }));

  it('logs go to stderr', () => {
    assert.match(stderr, /ipintel MCP server on stdio/);
  });
});

describe('the stdio entry, raw', () => {
  it('writes only JSON-RPC lines to stdout and exits when stdin closes', async () => {
    const child = spawn(process.execPath, ARGS, {
      env: { ...process.env, ...upstreams.env, LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.resume();
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`);
    child.stdin.write('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}}\n');
    // a bound against a hang only: the two answers come within a second
    const deadline = Date.now() + 60_000;
    while (out.split('\n').length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.stdin.end();
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    const lines = out.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 2, out);
    const answers = lines.map(
      (line) => JSON.parse(line) as { id: number; error?: { code: number } },
    );
    // answers come in the order they are ready, not the order asked
    answers.sort((a, b) => a.id - b.id);
    assert.equal(answers[0]?.id, 1);
    assert.equal(answers[1]?.error?.code, -32602);
  });

  it('a bad configuration stops it with a message on stderr naming the variable', async () => {
    const child = spawn(process.execPath, ARGS, {
      env: { ...process.env, DNS_TIMEOUT_MS: 'soon' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.equal(out, '');
    assert.match(err, /DNS_TIMEOUT_MS/);
  });
});
