// Runs compileUpdate in a worker thread: compiling a full release takes tens
// of seconds of CPU, which on the main thread would stall every request.
// The worker (./compile-worker.ts) gets the job as workerData and posts back
// the manifest or the error's message.
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { DataError } from '../compile/compile-sources.js';
import type { Manifest } from '../compiled-set.js';
import type { CompileJob } from './compile-update.js';

export type CompileReply = { ok: true; manifest: Manifest } | { ok: false; message: string };

/** Compiles `job` off the main thread; rejects with a DataError carrying the worker's reason. */
export function compileInWorker(job: CompileJob): Promise<Manifest> {
  // The worker's file sits beside this module's, with the same extension:
  // .js when built (dist/src/lookups/geoip/update/, or dist/bundle/ where both are
  // bundle outputs), .ts under tsx (tests, scripts), where Node 20 workers do
  // not take `--import tsx` and the file is loaded through tsx's API.
  const ext = extname(import.meta.url);
  const entry = new URL(`./compile-worker${ext}`, import.meta.url);
  const worker =
    ext === '.ts'
      ? new Worker(
          `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}))`,
          { eval: true, workerData: job },
        )
      : new Worker(entry, { workerData: job });
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
