// src/kit/early-stop.ts, preloaded by the container image: a stop signal before
// the service installs its own handler ends the process at once with 0; once
// another handler is there, that handler decides (here: it does not exit).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const EARLY_STOP = fileURLToPath(new URL('../../src/kit/early-stop.ts', import.meta.url));

/** Runs `script` with early-stop preloaded, sends `signal` once it says "up", and returns how it ended. */
async function stopped(
  script: string,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', EARLY_STOP, '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('up\n') && !child.killed) child.kill(signal);
  });
  const [code, endSignal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal: endSignal, out };
}

describe('early-stop', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during start-up exits 0 at once`, async () => {
      const got = await stopped("console.log('up'); setTimeout(() => {}, 30_000);", signal);
      assert.deepEqual([got.code, got.signal], [0, null]);
    });
  }

  it("leaves the signal to the service's own handler once there is one", async () => {
    const got = await stopped(
      "process.on('SIGTERM', () => { console.log('drained'); process.exit(3); });" +
        "console.log('up'); setTimeout(() => {}, 30_000);",
      'SIGTERM',
    );
    assert.deepEqual([got.code, got.out], [3, 'up\ndrained\n']);
  });
});
