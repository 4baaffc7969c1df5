// `npm run bench`: loads the service and a bare node:http baseline, in the
// same run, with the same client (wrk when installed, else autocannon; 50
// connections), the servers pinned to CPU 0 and the client to CPU 1, and
// prints req/s, p50, p99 and RSS of each scenario with the ratio
// service/baseline; then loads both at once and compares their CPU time per
// request (robust to a noisy machine). BENCH_SECONDS sets the run length,
// BENCH_VARIANTS=0 skips the Redis and WORKERS variants.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  CONNECTIONS,
  DURATION,
  SERVICE_FLAGS,
  USE_WRK,
  concurrentCost,
  freePort,
  here,
  load,
  pin,
  randomPublicIpv4,
  start,
  type Result,
} from './harness.js';

interface Scenario {
  name: string;
  path: string | (() => string);
  /** ratio service/baseline the issue asks for */
  target: number;
}

const scenarios: Scenario[] = [
  {
    name: 'GeoIP, random public IPv4 (cache miss)',
    path: () => `/ip/${randomPublicIpv4()}`,
    target: 0.65,
  },
  { name: 'GeoIP, same address (cache hit)', path: '/ip/8.8.8.8', target: 0.85 },
  { name: 'CIDR', path: '/cidr?range=10.20.30.40/20', target: 0.8 },
  {
    name: 'VPN detection, random public IPv4 (cache miss)',
    path: () => `/ip/${randomPublicIpv4()}/vpn`,
    target: 0.65,
  },
];

pin(process.pid, 1);
const baseline = await start(join(here, 'baseline-server.js'), {});
const service = await start(
  join(here, '..', 'src', 'main.js'),
  {
    HOST: '127.0.0.1',
    RATE_LIMIT_MAX: '1000000000',
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
  },
  true,
  SERVICE_FLAGS,
);

/** The same comparison, robust to a noisy machine (see concurrentCost). */
async function costLine(path: Scenario['path']): Promise<string> {
  const cost = await concurrentCost(baseline, service, path);
  if (cost === null) return '\n  (no /proc: the concurrent cost comparison is skipped)';
  const [bUs, vUs] = cost;
  return `\n  both loaded at once: CPU per request baseline ${bUs.toFixed(1)} µs, service ${vUs.toFixed(1)} µs → cost ratio ${(bUs / vUs).toFixed(2)}`;
}

const rows: string[] = [];
const ms = (v: number) => v.toFixed(2).padStart(6);
const fmt = (r: Result) =>
  `${String(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  RSS ${String(r.rssMb).padStart(4)} MB`;
for (const s of scenarios) {
  // warm both up (JIT, caches) before measuring
  await load(baseline.port, baseline.child.pid ?? 0, s.path, 2);
  await load(service.port, service.child.pid ?? 0, s.path, 2);
  const b = await load(baseline.port, baseline.child.pid ?? 0, s.path);
  const v = await load(service.port, service.child.pid ?? 0, s.path);
  const ratio = v.rps / b.rps;
  const p99Ratio = b.p99 === 0 ? 1 : v.p99 / b.p99;
  const cost = await costLine(s.path);
  rows.push(
    `${s.name}\n  baseline ${fmt(b)}\n  service  ${fmt(v)}${v.non2xx ? `  (${v.non2xx} non-2xx!)` : ''}\n  ratio ${ratio.toFixed(2)} (target ≥ ${s.target})  p99 ratio ${p99Ratio.toFixed(2)} (target ≤ 1.5)${cost}`,
  );
  process.stdout.write(`${rows.at(-1)}\n`);
}
service.child.kill();

let redis: ChildProcess | null = null;
if (process.env['BENCH_VARIANTS'] !== '0') {
  // Deployment variants of the same service, each against the same baseline run:
  // Redis-shared cache and limits, and two workers (the workers are not pinned:
  // with two cores they share them with the load client, so this measures what a
  // second worker buys on this box, not on a larger one).
  const variants: { name: string; env: Record<string, string>; pinned: boolean }[] = [];
  const redisPort = await freePort();
  try {
    execFileSync('bash', [join(here, '..', '..', 'scripts', 'ensure-redis.sh')], {
      stdio: 'ignore',
    });
    redis = spawn(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await new Promise((r) => setTimeout(r, 500));
    variants.push({
      name: 'REDIS_URL (shared cache and limits)',
      env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` },
      pinned: true,
    });
  } catch {
    process.stdout.write('redis-server unavailable: the Redis variant is skipped\n');
  }
  variants.push({ name: 'WORKERS=1 (unpinned)', env: {}, pinned: false });
  variants.push({ name: 'WORKERS=2 (unpinned)', env: { WORKERS: '2' }, pinned: false });
  const variantPaths: Scenario[] = [scenarios[1] as Scenario, scenarios[0] as Scenario];
  for (const variant of variants) {
    const v = await start(
      join(here, '..', 'src', 'main.js'),
      {
        HOST: '127.0.0.1',
        RATE_LIMIT_MAX: '1000000000',
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
        ...variant.env,
      },
      variant.pinned,
      SERVICE_FLAGS,
    );
    for (const s of variantPaths) {
      await load(v.port, v.child.pid ?? 0, s.path, 2);
      const b = await load(baseline.port, baseline.child.pid ?? 0, s.path);
      const r = await load(v.port, v.child.pid ?? 0, s.path);
      process.stdout.write(
        `${variant.name}: ${s.name}\n  service  ${fmt(r)}${r.non2xx ? `  (${r.non2xx} non-2xx!)` : ''}\n  ratio ${(r.rps / b.rps).toFixed(2)} against the baseline's ${b.rps} req/s\n`,
      );
    }
    v.child.kill();
    await new Promise((r) => setTimeout(r, 500));
  }
}
redis?.kill();
baseline.child.kill();
process.stdout.write(
  `\n${USE_WRK ? 'wrk' : 'autocannon'}, ${CONNECTIONS} connections, ${DURATION} s per run, servers on CPU 0 (unless unpinned), client on CPU 1.\n`,
);
