// How `npm run update-data` reports: in a terminal, one live line per data
// set (bytes and percent while downloading, then the compile phase); in a
// log (not a TTY), plain lines at each step and none per chunk.
import { performance } from 'node:perf_hooks';
import type { GeoProgress } from '../lookups/geoip/update/geo-updater.js';

export interface Output {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The live line while downloading: "12.0 MiB of 60.0 MiB  20%" (no percent without a size). */
export function bytesLine(bytes: number, total: number | null): string {
  if (total === null || total === 0) return size(bytes);
  return `${size(bytes)} of ${size(total)}  ${Math.floor((bytes / total) * 100)}%`;
}

const CLEAR = '\r\x1b[K';
const REDRAW_MS = 100;

export function geoReporter(out: Output, width: number, now = () => performance.now()) {
  const tty = out.isTTY === true;
  let lastDraw = -Infinity;
  let file = '';
  return (event: GeoProgress): void => {
    const name = event.kind.padEnd(width);
    const line = (text: string) =>
      out.write(tty ? `${CLEAR}${name}  ${text}` : `${name}  ${text}\n`);
    switch (event.phase) {
      case 'check':
        line(`checking ${event.source}`);
        break;
      case 'download':
        file = event.file;
        line(`fetching ${event.url}`);
        break;
      case 'bytes': {
        if (!tty) break;
        const at = now();
        // at most every 100 ms, and always the last chunk (100 %)
        if (at - lastDraw >= REDRAW_MS || event.bytes === event.total) {
          lastDraw = at;
          line(`downloading ${file}  ${bytesLine(event.bytes, event.total)}`);
        }
        break;
      }
      case 'compile':
        line('verified; compiling and checking the new tables…');
        break;
      case 'done':
        line(
          `ok      ${event.outcome === 'updated' ? 'updated  ' : 'unchanged'}  ${event.name} (${event.seconds} s)`,
        );
        if (tty) out.write('\n');
        break;
      case 'failed':
        line(`FAILED  ${event.error} (current data kept)`);
        if (tty) out.write('\n');
        break;
    }
  };
}
