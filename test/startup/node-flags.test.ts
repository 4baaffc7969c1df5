// The service runs with the same node flags however it is started: npm start
// (package.json), the container (Dockerfile), `ipintel serve` (src/cli/main.ts)
// and the benchmarks (bench/harness.ts reads package.json). A flag changed in
// one place and not the others would measure one service and ship another.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startCommand } from '../../bench/harness.js';
import { SERVICE_FLAGS } from '../../src/cli/service-flags.js';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';

describe("the service's node flags", () => {
  const start = startCommand(PROJECT_ROOT);

  it('npm start sets the semi-space size and huge pages', () => {
    assert.ok(
      start.flags.some((f) => f.startsWith('--max-semi-space-size=')),
      start.flags.join(' '),
    );
    assert.equal(
      start.env['GLIBC_TUNABLES'],
      'glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=131072',
    );
  });

  it('ipintel serve starts the service with the same flags', () => {
    assert.deepEqual(SERVICE_FLAGS, start.flags);
  });

  it('the container runs it with the same flags and environment', () => {
    const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    for (const flag of start.flags) assert.ok(cmd.includes(flag), `${flag} in ${cmd.join(' ')}`);
    for (const [name, value] of Object.entries(start.env)) {
      assert.match(dockerfile, new RegExp(`^\\s*${name}=${value.replace(/\./g, '\\.')}\\b`, 'm'));
    }
  });
});
