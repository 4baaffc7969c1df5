// The main thread's end of the CSV worker (./csv-worker.ts): the intervals
// and their answers as collectExport finds them, batched into chunks of
// operations (csv-rows.ts) written into a ring of chunks both threads share
// (one allocation: a new 2 MB array per chunk, 135 of them, was external
// memory whose growth started most of the main thread's full garbage
// collections), with the parts (place, network, detection) announced the
// first time a chunk names them. The CSV is written only there: there is one
// way it is made.
import type { Worker } from 'node:worker_threads';
import { startSiblingWorker } from '../kit/worker-thread.js';
import { OP_ADD_V4, OP_ADD_V6, OP_END, OP_GAP, OP_WORDS } from './csv-rows.js';

/** A part of answers as the main thread holds it: its MMDB offset, CSV text and worker id. */
export interface FedPart {
  offset: number;
  /** its CSV columns, each after a comma */
  csv: string;
  /** its id in the worker, -1 until announced */
  id: number;
}

export interface CsvWorkerData {
  csvFd: number;
  header: string;
  /** [chunks applied, failed (1)]: the worker counts, the main thread waits on it */
  progress: Int32Array;
  /** the ring of chunks: RING_CHUNKS slots of chunkOps operations (a SharedArrayBuffer) */
  ring: Uint32Array;
  chunkOps: number;
}

export type CsvWorkerMessage =
  | {
      kind: 'ops';
      parts: { ids: number[]; offsets: number[]; texts: string[] };
      /** the ring slot holding the chunk's operations */
      slot: number;
      count: number;
    }
  | { kind: 'finish' };

export type CsvWorkerReply =
  { ok: true; rows: number; bytes: number; sha256: string } | { ok: false; message: string };

/** operations per chunk: 2 MB transferred at a time */
const CHUNK_OPS = 65_536;
/**
 * chunks sent and not yet applied before the main thread waits for the
 * worker: on a loaded machine the lookups outrun the rows, and every chunk
 * queued is 2 MB of memory
 */
const MAX_IN_FLIGHT = 8;
/**
 * slots of the ring: the chunks in flight and the one being filled. Chunk n
 * is filled in slot n % RING_CHUNKS once chunk n - RING_CHUNKS was applied,
 * which waitForRoom ensured before chunk n - 1 was sent.
 */
export const RING_CHUNKS = MAX_IN_FLIGHT + 1;
/** the worker applied no chunk for this long: it is stuck or gone */
const STALLED_MS = 120_000;

/** The intervals in order, each with its answers' parts, as the CSV's rows are made of them. */
export class CsvInWorker {
  private readonly worker: Worker;
  private readonly reply: Promise<CsvWorkerReply>;
  private readonly started: Promise<void>;
  /** the ring both threads see, and the slot being filled */
  private readonly ring: Uint32Array;
  private ops: Uint32Array;
  private count = 0;
  private nextId = 0;
  private parts = { ids: [] as number[], offsets: [] as number[], texts: [] as string[] };
  private readonly progress = new Int32Array(new SharedArrayBuffer(8));
  private sent = 0;

  /**
   * `csvFd`: the open file the worker writes (after `header` and a line
   * break); `chunkOps`: operations per chunk (smaller in tests, to cross many).
   */
  constructor(
    csvFd: number,
    header: string,
    private readonly chunkOps = CHUNK_OPS,
  ) {
    const slotWords = chunkOps * OP_WORDS;
    this.ring = new Uint32Array(new SharedArrayBuffer(4 * RING_CHUNKS * slotWords));
    this.ops = this.slot(0);
    this.worker = startSiblingWorker(import.meta.url, 'csv-worker', {
      csvFd,
      header,
      progress: this.progress,
      ring: this.ring,
      chunkOps,
    } satisfies CsvWorkerData);
    let started: () => void = () => undefined;
    this.started = new Promise<void>((resolve) => (started = resolve));
    this.reply = new Promise<CsvWorkerReply>((resolve) => {
      this.worker.on('message', (message: CsvWorkerReply | 'started') => {
        if (message === 'started') started();
        else resolve(message);
      });
      const failed = (reason: string) => {
        started();
        resolve({ ok: false, message: reason });
      };
      this.worker.once('error', (error) => failed(error.message));
      this.worker.once('exit', (code) => failed(`the CSV worker exited with code ${code}`));
    });
  }

  /**
   * The worker has loaded its code. Wait for this before the first chunk:
   * sending blocks this thread while chunks queue (waitForRoom), and under
   * tsx a worker's modules load through this thread's event loop.
   */
  start(): Promise<void> {
    return this.started;
  }

  add(
    family: 4 | 6,
    w0: number,
    w1: number,
    w2: number,
    w3: number,
    place: FedPart,
    network: FedPart,
    detection: FedPart,
  ): void {
    this.op(
      family === 4 ? OP_ADD_V4 : OP_ADD_V6,
      w0,
      w1,
      w2,
      w3,
      this.idOf(place),
      this.idOf(network),
      this.idOf(detection),
    );
  }

  /** A stretch with no rows of its own starts here (the IPv4-mapped alias). */
  gap(w0: number, w1: number, w2: number, w3: number): void {
    this.op(OP_GAP, w0, w1, w2, w3, 0, 0, 0);
  }

  /** The family's last row ends at its last address. */
  end(family: 4 | 6): void {
    this.op(OP_END, family, 0, 0, 0, 0, 0, 0);
  }

  /** Sends what is left and waits for the worker's rows, bytes and hash. */
  async finish(): Promise<{ rows: number; bytes: number; sha256: string }> {
    this.send();
    this.worker.postMessage({ kind: 'finish' } satisfies CsvWorkerMessage);
    const reply = await this.reply;
    if (!reply.ok) throw new Error(`the CSV was not written: ${reply.message}`);
    return reply;
  }

  /** Stops the worker (a failed export). */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private idOf(part: FedPart): number {
    if (part.id < 0) {
      part.id = this.nextId++;
      this.parts.ids.push(part.id);
      this.parts.offsets.push(part.offset);
      this.parts.texts.push(part.csv);
    }
    return part.id;
  }

  private op(
    op: number,
    w0: number,
    w1: number,
    w2: number,
    w3: number,
    a: number,
    b: number,
    c: number,
  ): void {
    const ops = this.ops;
    const at = this.count * OP_WORDS;
    ops[at] = op;
    ops[at + 1] = w0;
    ops[at + 2] = w1;
    ops[at + 3] = w2;
    ops[at + 4] = w3;
    ops[at + 5] = a;
    ops[at + 6] = b;
    ops[at + 7] = c;
    if (++this.count === this.chunkOps) this.send();
  }

  /** Ring slot `index`'s operations. */
  private slot(index: number): Uint32Array {
    const words = this.chunkOps * OP_WORDS;
    return this.ring.subarray(index * words, (index + 1) * words);
  }

  private send(): void {
    this.waitForRoom();
    const message: CsvWorkerMessage = {
      kind: 'ops',
      parts: this.parts,
      slot: this.sent % RING_CHUNKS,
      count: this.count,
    };
    this.worker.postMessage(message);
    this.sent++;
    this.ops = this.slot(this.sent % RING_CHUNKS);
    this.count = 0;
    this.parts = { ids: [], offsets: [], texts: [] };
  }

  /**
   * Blocks while MAX_IN_FLIGHT chunks wait in the worker (the export is a
   * batch job of its own: the CLI, or the child process EXPORT_DIR runs).
   */
  private waitForRoom(): void {
    let applied = Atomics.load(this.progress, 0);
    let since = Date.now();
    while (this.sent - applied >= MAX_IN_FLIGHT && Atomics.load(this.progress, 1) === 0) {
      Atomics.wait(this.progress, 0, applied, 1000);
      const now = Atomics.load(this.progress, 0);
      if (now !== applied) {
        applied = now;
        since = Date.now();
      } else if (Date.now() - since > STALLED_MS) {
        throw new Error(`the CSV worker applied nothing for ${STALLED_MS / 1000} s`);
      }
    }
  }
}
