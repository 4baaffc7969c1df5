// The HTTP checks of scripts/container-smoke.sh, run on the host against the
// containers' published ports. Each prints what it saw and exits 1 when the
// service does not behave as docs/deployment.md says.
//
//   node dist/scripts/container/smoke-checks.js ready <seconds> [--redis] <url>...
//     every instance answers /readyz 200 within <seconds> (with --redis: and
//     reports dependencies.redis "up")
//   node dist/scripts/container/smoke-checks.js burst <n> <ok> <limited> <url>...
//     n requests for /ip/8.8.8.8 spread round-robin over the instances get
//     exactly <ok> 200 and <limited> 429 in all, each instance answers both,
//     the first answer of each is 8.8.8.8's real record, and each instance's
//     /metrics counts the 429s it sent
//   node dist/scripts/container/smoke-checks.js page <url>
//     a browser's GET / is the HTML page, and every /assets/ file it names
//     is served (the image must carry web/ beside dist/)
const REQUEST_TIMEOUT_MS = 5_000;
const PROBE = '8.8.8.8';

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

async function get(url: string): Promise<Answer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

function fail(message: string): never {
  process.stderr.write(`smoke-checks: ${message}\n`);
  process.exit(1);
}

async function ready(seconds: number, needRedis: boolean, urls: string[]): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (const url of urls) {
    let last = 'no answer';
    for (;;) {
      try {
        const answer = await get(`${url}/readyz`);
        const data = (JSON.parse(answer.body) as { data?: { dependencies?: { redis?: string } } })
          .data;
        const redis = data?.dependencies?.redis;
        if (answer.status === 200 && (!needRedis || redis === 'up')) break;
        last = `${answer.status} ${answer.body.slice(0, 200)}`;
      } catch (error) {
        last = String(error);
      }
      if (Date.now() > deadline) fail(`${url}/readyz not ready within ${seconds} s: ${last}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    process.stdout.write(`ready: ${url}${needRedis ? ' (redis up)' : ''}\n`);
  }
}

/** The real record of 8.8.8.8 in the embedded DB-IP/ASN data. */
function checkRecord(url: string, answer: Answer): void {
  const data = (JSON.parse(answer.body) as { data?: Record<string, unknown> }).data ?? {};
  const want = { ip: PROBE, country: 'US', asn: 'AS15169', bogon: false };
  for (const [field, value] of Object.entries(want)) {
    if (data[field] !== value) fail(`${url}: /ip/${PROBE} ${field} = ${String(data[field])}`);
  }
  process.stdout.write(`${url}/ip/${PROBE}: ${answer.body}\n`);
}

/** ipintel_rate_limited_total of one instance (a prom-client counter without labels). */
async function rateLimitedCount(url: string): Promise<number> {
  const text = (await get(`${url}/metrics`)).body;
  const line = text.split('\n').find((l) => l.startsWith('ipintel_rate_limited_total'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

async function burst(n: number, ok: number, limited: number, urls: string[]): Promise<void> {
  const counts = urls.map(() => new Map<number, number>());
  for (let i = 0; i < n; i++) {
    const url = urls[i % urls.length]!;
    const answer = await get(`${url}/ip/${PROBE}`);
    if (i < urls.length) checkRecord(url, answer);
    if (answer.status === 429 && answer.headers.get('retry-after') === null) {
      fail(`${url}: 429 without Retry-After`);
    }
    const tally = counts[i % urls.length]!;
    tally.set(answer.status, (tally.get(answer.status) ?? 0) + 1);
  }
  let totalOk = 0;
  let totalLimited = 0;
  for (const [i, url] of urls.entries()) {
    const tally = counts[i]!;
    const okHere = tally.get(200) ?? 0;
    const limitedHere = tally.get(429) ?? 0;
    const metric = await rateLimitedCount(url);
    process.stdout.write(
      `${url}: ${JSON.stringify(Object.fromEntries(tally))}, /metrics ipintel_rate_limited_total ${metric}\n`,
    );
    if (okHere === 0 || limitedHere === 0) fail(`${url} did not answer both 200 and 429`);
    if (metric !== limitedHere)
      fail(`${url}: /metrics counts ${metric} rejections, sent ${limitedHere}`);
    totalOk += okHere;
    totalLimited += limitedHere;
  }
  process.stdout.write(`${n} requests: ${totalOk} × 200, ${totalLimited} × 429\n`);
  if (totalOk !== ok || totalLimited !== limited) {
    fail(`expected ${ok} × 200 and ${limited} × 429`);
  }
}

async function page(url: string): Promise<void> {
  const response = await fetch(`${url}/`, {
    headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const html = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (response.status !== 200 || !type.startsWith('text/html')) {
    fail(`${url}/: a browser got ${response.status} ${type}, not the page`);
  }
  const assets = [...new Set(html.match(/\/assets\/[A-Za-z0-9._-]+/g) ?? [])];
  if (assets.length === 0) fail(`${url}/: the page names no /assets/ file`);
  for (const asset of assets) {
    const answer = await get(`${url}${asset}`);
    if (answer.status !== 200) fail(`${url}${asset}: ${answer.status}`);
  }
  process.stdout.write(`the page and its ${assets.length} assets are served\n`);
}

/**
 * A bound on the whole command. It also keeps the event loop alive: Node 20's
 * fetch, refused by a port that is published but not yet listened on, can
 * leave no handle referenced and the process would end mid-await.
 */
function deadline(seconds: number): NodeJS.Timeout {
  return setTimeout(() => fail(`no result within ${seconds} s`), seconds * 1000);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'ready') {
  const [seconds, ...rest] = args;
  const needRedis = rest[0] === '--redis';
  const watchdog = deadline(Number(seconds) + 10);
  await ready(Number(seconds), needRedis, needRedis ? rest.slice(1) : rest);
  clearTimeout(watchdog);
} else if (command === 'burst') {
  const [n, ok, limited, ...urls] = args;
  const watchdog = deadline(120);
  await burst(Number(n), Number(ok), Number(limited), urls);
  clearTimeout(watchdog);
} else if (command === 'page' && args[0] !== undefined) {
  const watchdog = deadline(30);
  await page(args[0]);
  clearTimeout(watchdog);
} else {
  fail(
    'usage: smoke-checks ready <seconds> [--redis] <url>... | burst <n> <ok> <limited> <url>... | page <url>',
  );
}
