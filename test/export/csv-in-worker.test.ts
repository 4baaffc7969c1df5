// The CSV's rows are made in a worker thread (src/export/csv-in-worker.ts,
// csv-worker.ts) from chunks of interval operations. The worker runs the same
// CsvRows as a direct in-thread call: here both are fed one seeded stream of
// intervals — longer than the chunks the main thread may have in flight, so
// it waits for the worker — and must write the same bytes with the same
// hash. A worker that cannot write fails the export with its reason.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Buffer } from 'node:buffer';
import { CsvInWorker, type FedPart } from '../../src/export/csv-in-worker.js';
import {
  CsvRows,
  OP_ADD_V4,
  OP_ADD_V6,
  OP_END,
  OP_GAP,
  OP_WORDS,
} from '../../src/export/csv-rows.js';
import { NO_DATA } from '../../src/export/mmdb-tree.js';
import { seededRandom } from '../helpers/seeded-random.js';

const random = seededRandom();
const HEADER = 'start,end,cidr,a,b,c';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-csv-worker-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Step =
  | { op: 'add'; family: 4 | 6; words: number[]; parts: [number, number, number] }
  | { op: 'gap'; words: number[] }
  | { op: 'end'; family: 4 | 6 };

/** A stream of ascending intervals over a few parts (some with no data: no row). */
function stream(): { parts: FedPart[]; steps: Step[] } {
  const parts: FedPart[] = [
    { offset: NO_DATA, csv: ',', id: -1 },
    { offset: 0, csv: ',DE', id: -1 },
    { offset: 9, csv: ',"Québec, QC"', id: -1 },
    { offset: 20, csv: ',AS3320', id: -1 },
    { offset: 20, csv: ',AS3320', id: -1 }, // equal to the one before: one row across both
    { offset: 31, csv: ',true', id: -1 },
  ];
  const pick = () => random.below(parts.length);
  const steps: Step[] = [];
  let v4 = 0;
  while (steps.length < 40_000) {
    steps.push({ op: 'add', family: 4, words: [0, 0, 0, v4], parts: [pick(), pick(), pick()] });
    v4 += 1 + random.below(5000);
    if (v4 >= 2 ** 32) break;
  }
  steps.push({ op: 'end', family: 4 });
  let high = 0x20010db8;
  for (let i = 0; i < 20_000; i++) {
    high += random.below(4);
    const words = [high, random.u32(), 0, random.below(2) * 0x100];
    if (i === 10_000) steps.push({ op: 'gap', words });
    else steps.push({ op: 'add', family: 6, words, parts: [pick(), pick(), pick()] });
    high += 1;
  }
  steps.push({ op: 'end', family: 6 });
  return { parts, steps };
}

/** The same stream through CsvRows in this thread. */
function direct(parts: readonly FedPart[], steps: readonly Step[]): Buffer {
  const chunks: Buffer[] = [];
  const rows = new CsvRows({ write: (chunk) => chunks.push(Buffer.from(chunk)) }, HEADER);
  parts.forEach((p, id) => rows.announce(id, p.offset, p.csv));
  const ops = new Uint32Array(OP_WORDS);
  for (const step of steps) {
    ops.fill(0);
    if (step.op === 'end') {
      ops[0] = OP_END;
      ops[1] = step.family;
    } else {
      ops[0] = step.op === 'gap' ? OP_GAP : step.family === 4 ? OP_ADD_V4 : OP_ADD_V6;
      ops.set(step.words, 1);
      if (step.op === 'add') ops.set(step.parts, 5);
    }
    rows.apply(ops, 1);
  }
  rows.finish();
  return Buffer.concat(chunks);
}

describe('the CSV worker', () => {
  it('writes the bytes CsvRows writes in this thread, with their hash', async () => {
    const { parts, steps } = stream();
    const path = join(dir, 'rows.csv');
    const fd = openSync(path, 'w');
    // chunks of 1,000 operations: far more than may be in flight at once
    const csv = new CsvInWorker(fd, HEADER, 1000);
    await csv.start();
    for (const step of steps) {
      if (step.op === 'add') {
        const [w0, w1, w2, w3] = step.words as [number, number, number, number];
        const [a, b, c] = step.parts.map((i) => parts[i]!) as [FedPart, FedPart, FedPart];
        csv.add(step.family, w0, w1, w2, w3, a, b, c);
      } else if (step.op === 'gap') {
        const [w0, w1, w2, w3] = step.words as [number, number, number, number];
        csv.gap(w0, w1, w2, w3);
      } else csv.end(step.family);
    }
    const done = await csv.finish();
    closeSync(fd);
    const written = readFileSync(path);
    // the parts in the order they were first named, as the worker was told
    const announced = [...parts].sort((x, y) => x.id - y.id);
    const expected = direct(
      announced,
      steps.map((s) => remap(s, parts, announced)),
    );
    assert.ok(written.length > 1_000_000, `only ${written.length} bytes`);
    assert.ok(written.equals(expected), `the worker wrote other bytes (TEST_SEED=${random.seed})`);
    assert.equal(done.bytes, written.length);
    assert.equal(done.sha256, createHash('sha256').update(written).digest('hex'));
    assert.equal(done.rows, written.toString('latin1').split('\n').length - 2);
    assert.ok(done.rows > 20_000, `${done.rows} rows`);
  });

  it('fails the export with its reason when it cannot write', async () => {
    const path = join(dir, 'read-only.csv');
    closeSync(openSync(path, 'w'));
    const fd = openSync(path, 'r'); // the worker's writes fail: EBADF
    const csv = new CsvInWorker(fd, HEADER);
    await csv.start();
    const part: FedPart = { offset: 0, csv: ',x', id: -1 };
    csv.add(4, 0, 0, 0, 1, part, part, part);
    csv.end(4);
    await assert.rejects(csv.finish(), /the CSV was not written: EBADF/);
    closeSync(fd);
  });
});

/** A step's part indexes into `parts`, as indexes into `announced` (the worker's ids). */
function remap(step: Step, parts: readonly FedPart[], announced: readonly FedPart[]): Step {
  if (step.op !== 'add') return step;
  const at = (i: number) => announced.indexOf(parts[i]!);
  return { ...step, parts: [at(step.parts[0]), at(step.parts[1]), at(step.parts[2])] };
}
