// yauzl's ZIP reader, loaded to check or compile IP2Location's ZIP downloads
// (src/lookups/geoip/compile/zip-file.ts); why a module of its own:
// src/later/prom-client.ts.
export { openPromise } from 'yauzl';
export type { Entry, ZipFile } from 'yauzl';
