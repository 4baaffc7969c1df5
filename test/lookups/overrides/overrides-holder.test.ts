// The holder's file that is there but cannot be read (here a folder in its
// place): refused like a bad file, the rows in memory answering on; and a
// file gone means no overrides.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseIp } from '../../../src/net/ip.js';
import { OverridesHolder } from '../../../src/lookups/overrides/overrides-holder.js';

describe('OverridesHolder, a file that cannot be read', () => {
  let dir: string;
  const errors: { fields: object; message: string }[] = [];
  const log = {
    info: () => undefined,
    error: (fields: object, message: string) => errors.push({ fields, message }),
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ipintel-overrides-holder-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('at start: refused with the reason, no rows answering', async () => {
    const file = join(dir, 'start.csv');
    await mkdir(file);
    const holder = await OverridesHolder.open(file, log);
    assert.equal(holder.current.size, 0);
    assert.equal(holder.status.rows, 0);
    const problems = holder.status.refused?.problems ?? [];
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.line, 0);
    assert.match(problems[0]!.reason, /^unreadable: .*EISDIR/);
    assert.match(errors.at(-1)?.message ?? '', /^overrides file refused \(1 bad line\)/);
  });

  it('after a good file: refused, the previous rows answering on; gone: none', async () => {
    const file = join(dir, 'later.csv');
    await writeFile(file, 'network,city\n192.0.2.0/24,Leipzig\n');
    const holder = await OverridesHolder.open(file, log);
    const ip = parseIp('192.0.2.7')!;
    assert.equal(holder.current.rowOf(ip)?.fields.city, 'Leipzig');
    const version = holder.status.version;
    await rm(file);
    await mkdir(file);
    await holder.reload({ ifChanged: true });
    assert.match(holder.status.refused?.problems[0]?.reason ?? '', /^unreadable: /);
    assert.equal(holder.current.rowOf(ip)?.fields.city, 'Leipzig');
    assert.equal(holder.status.version, version);
    assert.equal(holder.status.rows, 1);
    await rm(file, { recursive: true });
    await holder.reload({ ifChanged: true });
    assert.equal(holder.current.rowOf(ip), null);
    assert.equal(holder.status.version, 'none');
    assert.equal(holder.status.refused, null);
  });
});
