// Runs compileUpdate in a worker thread: compiling a full release takes tens
// of seconds of CPU, which on the main thread would stall every request.
// The worker (./compile-worker.ts) gets the job as workerData and posts back
// the manifest or the error's message.
import { startSiblingWorker } from '../../../kit/worker-thread.js';
import { DataError } from '../compile/compile-sources.js';
import type { Manifest } from '../compiled-set.js';
import type { CompileJob, ReconcileJob } from './compile-update.js';

export type CompileReply = { ok: true; manifest: Manifest } | { ok: false; message: string };

/**
 * Compiles `job` (an update's tables, or a reconciled table for the cache)
 * off the main thread; rejects with a DataError carrying the worker's reason.
 */
export function compileInWorker(job: CompileJob | { reconcile: ReconcileJob }): Promise<Manifest> {
  // the worker's file sits beside this module's (src/kit/worker-thread.ts)
  const worker = startSiblingWorker(import.meta.url, 'compile-worker', job);
  return new Promise<Manifest>((resolve, reject) => {
    let settled = false;
    worker.once('message', (reply: CompileReply) => {
      settled = true;
      if (reply.ok) resolve(reply.manifest);
      else reject(new DataError(reply.message));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(new DataError(`compiling failed: ${error.message}`, { cause: error }));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new DataError(`the compile worker exited with code ${code}`));
    });
  });
}
