// Start-up loads only what every deployment uses: the real service
// (src/main.ts) in a child process, with a module hook (module.register) that
// writes down every URL the child resolves. Without REDIS_URL, ioredis is
// never loaded; the MCP SDK is loaded by the first POST /mcp, not before.
// Each case also shows the package appearing once it is needed, so an absence
// means "not loaded" and not "not seen by the hook".
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { listeningPorts } from '../helpers/ports.js';

const IOREDIS = '/node_modules/ioredis/';
const MCP_SDK = '/node_modules/@modelcontextprotocol/';

/** Resolve hook: appends each resolved URL to the file named by register()'s data. */
const RECORDER = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

function dataUrl(source: string): string {
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

interface Child {
  port: number;
  /** every URL the child has resolved so far */
  resolved(): string[];
}

const dir = mkdtempSync(join(tmpdir(), 'ipintel-imports-'));
const children: ChildProcess[] = [];

after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The service with the recorder registered after tsx (so it sees the resolved
 * .ts URLs), on a port of its own choosing (PORT=0), found where the child
 * listens (listeningPorts): a port picked beforehand could be taken meanwhile
 * by another file's child, whose /healthz would then answer for a service
 * that has not loaded anything yet.
 */
async function startRecorded(name: string, env: Record<string, string>): Promise<Child> {
  const file = join(dir, `${name}.txt`);
  const register = `import { register } from 'node:module';
register(${JSON.stringify(dataUrl(RECORDER))}, import.meta.url, { data: { file: ${JSON.stringify(file)} } });`;
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  delete childEnv['NODE_TEST_CONTEXT']; // the runner's marker would change how a node child behaves
  delete childEnv['REDIS_URL'];
  Object.assign(childEnv, {
    PORT: '0',
    HOST: '127.0.0.1',
    WORKERS: '1',
    LOG_LEVEL: 'silent',
    FEED_UPDATE_INTERVAL_HOURS: '0',
    ...env,
  });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', dataUrl(register), 'src/main.ts'],
    { cwd: PROJECT_ROOT, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr += chunk));
  // tsx compiles the sources and the data loads: slow under a busy suite
  const deadline = Date.now() + 30_000;
  for (;;) {
    assert.equal(child.exitCode, null, `the service exited early: ${stderr}`);
    const port = listeningPorts(child.pid ?? 0)[0];
    const up =
      port !== undefined &&
      (await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ));
    if (up) return { port, resolved: () => recorded(file) };
    assert.ok(Date.now() < deadline, `/healthz never answered: ${stderr}`);
    await sleep(100);
  }
}

function recorded(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

function loaded(urls: string[], marker: string): string[] {
  return urls.filter((url) => url.includes(marker));
}

describe('start-up loads only what the deployment uses', () => {
  it('without REDIS_URL: neither ioredis nor the MCP SDK at start; the SDK on the first POST /mcp', async () => {
    const child = await startRecorded('plain', {});
    const atStart = child.resolved();
    assert.ok(
      atStart.some((url) => url.endsWith('/src/main.ts')),
      'the hook saw the start-up',
    );
    assert.deepEqual(loaded(atStart, IOREDIS), []);
    assert.deepEqual(loaded(atStart, MCP_SDK), []);

    const answer = await fetch(`http://127.0.0.1:${child.port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(answer.status, 200);
    const tools = ((await answer.json()) as { result?: { tools?: unknown[] } }).result?.tools;
    assert.ok(Array.isArray(tools) && tools.length > 0);
    assert.notDeepEqual(loaded(child.resolved(), MCP_SDK), [], 'the SDK is loaded now');
    assert.deepEqual(loaded(child.resolved(), IOREDIS), []);
  });

  it('with REDIS_URL: ioredis is loaded at start (and the SDK still is not)', async () => {
    // nothing listens on port 1: the service starts and answers with Redis down
    const child = await startRecorded('redis', { REDIS_URL: 'redis://127.0.0.1:1' });
    assert.notDeepEqual(loaded(child.resolved(), IOREDIS), []);
    assert.deepEqual(loaded(child.resolved(), MCP_SDK), []);
  });
});
