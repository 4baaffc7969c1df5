// The compile worker's entry (a worker thread started by compileInWorker in
// ./compile-in-worker.ts): it gets the job as workerData, compiles, and posts
// back the manifest or the error's message. A file of its own so that it is
// an entry of the service's bundle too (scripts/bundle.ts), beside it.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { CompileReply } from './compile-in-worker.js';
import {
  compileReconciled,
  compileUpdate,
  type CompileJob,
  type ReconcileJob,
} from './compile-update.js';

const job = workerData as { output?: unknown; reconcile?: ReconcileJob } | null;
if (!isMainThread && parentPort !== null && (job?.output || job?.reconcile)) {
  const port = parentPort;
  (job.reconcile ? compileReconciled(job.reconcile) : compileUpdate(workerData as CompileJob))
    .then((manifest) => port.postMessage({ ok: true, manifest } satisfies CompileReply))
    .catch((error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies CompileReply),
    );
}
