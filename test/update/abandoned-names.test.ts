// What `update-data` clears of a killed writer's names in progress
// (src/kit/atomic-file.ts): every name of a dead writer of this host, also a
// file written atomically to a name that is itself in progress (the compiled
// tables' file inside an update's output, killed while it was written: found
// by test/update/update-killed.test.ts under load), and nothing of a live one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clearAbandoned, partialName } from '../../src/kit/atomic-file.js';

let dir: string;
let dead: number;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-abandoned-'));
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  dead = child.pid!;
});
after(() => rm(dir, { recursive: true, force: true }));

describe('names in progress', () => {
  it("a dead writer's names go, nested ones too; a live writer's stay", async () => {
    const host = hostname();
    const deadOuter = `.asn.tables.partial.${dead}@${host}.0badc0de`;
    const nestedDead = `${deadOuter}.partial.${dead}@${host}.5eed1234`;
    const liveOuter = partialName(join(dir, '.geoip.tables'));
    const nestedLive = partialName(liveOuter);
    const names = [deadOuter, nestedDead, liveOuter, nestedLive].map((path) =>
      path.slice(path.lastIndexOf('/') + 1),
    );
    for (const name of names) await writeFile(join(dir, name), 'in progress');

    const removed = await clearAbandoned(dir);
    assert.deepEqual(removed.sort(), [deadOuter, nestedDead].sort());
    assert.deepEqual((await readdir(dir)).sort(), [names[2], names[3]].sort());
  });

  it("another host's nested name is kept (its writer may be alive there)", async () => {
    const other = `.asn.tables.partial.${dead}@elsewhere.example.0badc0de.partial.${dead}@elsewhere.example.5eed1234`;
    await writeFile(join(dir, other), 'in progress');
    assert.deepEqual(await clearAbandoned(dir), []);
  });
});
