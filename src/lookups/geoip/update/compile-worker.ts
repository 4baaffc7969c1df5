// The compile worker's entry (a worker thread started by compileInWorker in
// ./compile-in-worker.ts): it gets the job as workerData, compiles, and posts
// back the manifest or the error's message. A file of its own so that it is
// an entry of the service's bundle too (scripts/bundle.ts), beside it.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { CompileReply } from './compile-in-worker.js';
import { compileUpdate, type CompileJob } from './compile-update.js';

if (!isMainThread && parentPort !== null && (workerData as { output?: unknown })?.output) {
  const port = parentPort;
  compileUpdate(workerData as CompileJob)
    .then((manifest) => port.postMessage({ ok: true, manifest } satisfies CompileReply))
    .catch((error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies CompileReply),
    );
}
