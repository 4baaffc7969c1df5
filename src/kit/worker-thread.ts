// A worker thread started from a module beside the caller's, with the same
// extension: .js when built (dist/…, or dist/bundle/ where both are bundle
// outputs), .ts under tsx (tests, scripts), where Node 20 workers do not take
// `--import tsx` and the file is loaded through tsx's API.
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';

/** Starts `./<name>` (beside `callerUrl`, its extension) as a worker with `workerData`. */
export function startSiblingWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  const ext = extname(callerUrl);
  const entry = new URL(`./${name}${ext}`, callerUrl);
  return ext === '.ts'
    ? new Worker(
        `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(callerUrl)}))`,
        { eval: true, workerData },
      )
    : new Worker(entry, { workerData });
}
