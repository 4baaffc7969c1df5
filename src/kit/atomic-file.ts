// Files replaced whole: written beside their target under a name no other
// writer uses, then renamed over it, so a reader sees the old file or the new
// one, never a part. The temporary names carry the writer's process id and
// host, so that an update killed halfway (SIGKILL, a cron job's timeout, a
// reboot) leaves something the next update can recognise as abandoned and
// remove: `clearAbandoned` removes what a dead writer of this host left, and
// never what a live one (a concurrent update, another container on a shared
// volume) is still writing.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * The marker of a name in progress: `<name>.partial.<pid>@<host>.<random>`,
 * the last one when there are two (a file written atomically to a name that
 * is itself in progress: the compiled tables' file inside an update's output):
 * the host holds no `@`, so it cannot run back over an inner marker and read
 * `<host>.<random>.partial.<pid>` as a host of another machine, whose names
 * are kept a day.
 */
const PARTIAL = /\.partial\.(\d+)@([^@]+)\.[0-9a-f]{8}$/;
/**
 * Names in progress of the versions before this marker (`x.tmp`, `x.tmp-<pid>`,
 * `x.tmp-<pid>-<hex>`, `.work-<kind>-XXXXXX`, `.<kind>.tables-<hex>`): they say
 * no host, so they are removed only once nothing can still be writing them.
 */
const OLD_PARTIAL =
  /(\.tmp(-\d+(-[0-9a-f]{8})?)?$)|(^\.work-[a-z]+-\w{6}$)|(^\.[a-z]+\.tables-[0-9a-f]{8}$)/;
/** longer than any update runs: a partial name of another host this old is abandoned */
const ABANDONED_AFTER_MS = 24 * 3_600_000;
/** an old-style partial name not touched for this long was left by a dead writer */
const OLD_ABANDONED_AFTER_MS = 3_600_000;

/** A name beside `path` that no other writer, here or on another host, uses. */
export function partialName(path: string): string {
  return `${path}.partial.${process.pid}@${hostname()}.${randomBytes(4).toString('hex')}`;
}

export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const temp = partialName(path);
  try {
    await writeFile(temp, content, { flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The same, for the callers that run before anything is served (start-up, the CLI). */
export function writeFileAtomicSync(path: string, content: string | Uint8Array): void {
  const temp = partialName(path);
  try {
    writeFileSync(temp, content, { flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a directory entry is a file or folder in progress that its writer abandoned. */
function isAbandoned(name: string, modifiedMs: number, nowMs: number): boolean {
  const match = PARTIAL.exec(name);
  if (match !== null) {
    const [, pid, host] = match;
    if (host === hostname()) return Number(pid) !== process.pid && !isAlive(Number(pid));
    return nowMs - modifiedMs > ABANDONED_AFTER_MS;
  }
  return OLD_PARTIAL.test(name) && nowMs - modifiedMs > OLD_ABANDONED_AFTER_MS;
}

/**
 * Removes from `dir` (not below it) what writers that are gone left in
 * progress: temporary files and work folders. Returns their names. A missing
 * folder holds nothing.
 */
export async function clearAbandoned(dir: string, now: Date = new Date()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!PARTIAL.test(name) && !OLD_PARTIAL.test(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info === null || !isAbandoned(name, info.mtimeMs, now.getTime())) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
