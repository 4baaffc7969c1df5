// Runs compileUpdate in a worker thread: compiling a full release takes tens
// of seconds of CPU, which on the main thread would stall every request.
// The worker gets the job as workerData and posts back the manifest or the
// error's message.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataError } from '../compile-sources.js';
import type { Manifest } from '../compiled-set.js';
import { compileUpdate, type CompileJob } from './compile-update.js';

type Reply = { ok: true; manifest: Manifest } | { ok: false; message: string };

/** Compiles `job` off the main thread; rejects with a DataError carrying the worker's reason. */
export function compileInWorker(job: CompileJob): Promise<Manifest> {
  // the same file, as .ts under tsx (tests, scripts) or .js when built
  const here = fileURLToPath(import.meta.url);
  // built, the worker runs this .js file; from source (tests, tsx scripts) it
  // loads this .ts file through tsx's API (Node 20 workers do not take `--import tsx`)
  const worker =
    extname(here) === '.ts'
      ? new Worker(
          `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(import.meta.url)}, ${JSON.stringify(import.meta.url)}))`,
          { eval: true, workerData: job },
        )
      : new Worker(new URL(import.meta.url), { workerData: job });
  return new Promise<Manifest>((resolve, reject) => {
    let settled = false;
    worker.once('message', (reply: Reply) => {
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

if (!isMainThread && parentPort !== null && (workerData as { output?: unknown })?.output) {
  const port = parentPort;
  compileUpdate(workerData as CompileJob)
    .then((manifest) => port.postMessage({ ok: true, manifest } satisfies Reply))
    .catch((error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      } satisfies Reply),
    );
}
