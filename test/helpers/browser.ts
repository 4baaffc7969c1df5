// A real headless Chromium for the web page's tests: Debian's `chromium`
// package (installed by scripts/ensure-chromium.sh when missing, the way
// redis-server is), driven by playwright-core through its executablePath —
// no browser download. One launch per test file; a context per scenario.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const ENSURE_SCRIPT = fileURLToPath(new URL('../../scripts/ensure-chromium.sh', import.meta.url));

function chromiumPath(): string {
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  if (found.status === 0) return found.stdout.trim();
  const install = spawnSync('sh', [ENSURE_SCRIPT], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (install.status !== 0) {
    throw new Error(`${ENSURE_SCRIPT} failed (exit ${install.status}): chromium is needed`);
  }
  return spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Chromium refuses to sandbox as root (the test setup runs as root)
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
