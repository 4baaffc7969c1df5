// The CSV worker's entry (a worker thread started by CsvInWorker in
// ./csv-in-worker.ts): it turns the stream of intervals into the CSV's rows
// (csv-rows.ts) and writes them to the open file it was given, hashing them,
// while the main thread goes on looking intervals up and writes the MMDB
// files. Two cores: the export's wall time is the longer of the two, not
// their sum.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { CsvRows, OP_WORDS } from './csv-rows.js';
import { HashedOutput } from './hashed-output.js';
import type { CsvWorkerData, CsvWorkerMessage, CsvWorkerReply } from './csv-in-worker.js';

if (
  !isMainThread &&
  parentPort !== null &&
  (workerData as CsvWorkerData | null)?.csvFd !== undefined
) {
  const port = parentPort;
  const { csvFd, header, progress, ring, chunkOps } = workerData as CsvWorkerData;
  const slotWords = chunkOps * OP_WORDS;
  const out = new HashedOutput(csvFd);
  const rows = new CsvRows(out, header);
  port.postMessage('started');
  port.on('message', (message: CsvWorkerMessage) => {
    try {
      if (message.kind === 'ops') {
        const { ids, offsets, texts } = message.parts;
        for (let i = 0; i < ids.length; i++) rows.announce(ids[i]!, offsets[i]!, texts[i]!);
        rows.apply(ring.subarray(message.slot * slotWords), message.count);
        Atomics.add(progress, 0, 1);
        Atomics.notify(progress, 0);
        return;
      }
      rows.finish();
      port.postMessage({ ok: true, rows: rows.count, ...out.finish() } satisfies CsvWorkerReply);
    } catch (error) {
      Atomics.store(progress, 1, 1);
      Atomics.notify(progress, 0);
      const reason = error instanceof Error ? error.message : String(error);
      port.postMessage({ ok: false, message: reason } satisfies CsvWorkerReply);
    }
    port.close();
  });
}
