// `npm run bench`: what the reference ../shared/bench/perf-bar.sh measures,
// with the same figures. The service (`node <npm start's flags>
// dist/bundle/main.js`) and a bare node:http server (bench/baseline-server.ts)
// are started once, each pinned to CPU 0. Per scenario: one warm-up load of
// each, then BENCH_ROUNDS interleaved pairs (the service alone, then the bare
// server alone), each load `wrk -t1 -c50 -d<BENCH_SECONDS>s --latency`
// pinned to CPU 1 and cycling through 100,000 seeded paths. The figure is the
// CPU time each server spent per request (utime + stime from /proc over its
// load window ÷ requests wrk completed), as the ratio bare ÷ service; the
// medians of the rounds are held against the targets. Also: the p99 ratio,
// the service's RSS after the load, and the time from spawning it to its
// first /ip/8.8.8.8 answer (directly, and through `npm start` after an
// untimed build check).
// BENCH_AGAINST=<another checkout, built> also starts that checkout's service
// on the same CPU and loads it in the same rounds (the two services' order
// alternating from round to round, the bare server last): side by side with
// another revision, as issue 36 asks, with the per-round ratio of the two.
// See BENCHMARKS.md. Exit 0 (a benchmark, not a gate); 1 when it could not
// measure, 2 when wrk, taskset or /proc is missing.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BENCH_DIR,
  CLIENT_CPU,
  CONNECTIONS,
  envCount,
  freePort,
  load,
  loadWorkspace,
  MAIN,
  median,
  missingTools,
  pin,
  ROOT,
  rssMb,
  SERVER_CPU,
  SERVICE_ENV,
  startCommand,
  startServer,
  stop,
  type Load,
  type Server,
} from './harness.js';
import { PATH_COUNT, writePathLists, type ScenarioName } from './paths.js';

const READY_PATH = '/ip/8.8.8.8';

const SCENARIOS: readonly { name: ScenarioName; label: string; min: number }[] = [
  { name: 'ip4', label: '/ip/<random public IPv4>', min: 0.7 },
  { name: 'ip6', label: '/ip/<random IPv6>', min: 0.6 },
  { name: 'vpn', label: '/ip/<random public IPv4>/vpn', min: 0.6 },
  { name: 'cidr', label: '/cidr?range=<random IPv4>/<0..32>', min: 0.75 },
  // the compatible formats (issue 43): each within 10 % of ip4's CPU per request,
  // measured against /ip/<random> loaded on the service just before it in each
  // round (`<name>/ip4`); and at least 0.9 × ip4's bar against the bare server
  { name: 'ipinfo', label: '/ipinfo/<random public IPv4>', min: 0.63 },
  { name: 'ipapi', label: '/ip-api/json/<random public IPv4>', min: 0.63 },
  { name: 'geoip2city', label: '/geoip/v2.1/city/<random public IPv4>', min: 0.63 },
  { name: 'geoip2insights', label: '/geoip/v2.1/insights/<random public IPv4>', min: 0.63 },
];
/** the compatible formats' scenarios, compared with ip4's CPU per request */
const COMPAT = new Set(['ipinfo', 'ipapi', 'geoip2city', 'geoip2insights']);
const MAX_COMPAT_RATIO = 1.1;
const MAX_P99_RATIO = 2.0; // ip4
const MAX_RSS_MB = 250;
const MAX_READY_MS = 1000;
const MAX_NPM_START_READY_MS = 1500;

function selectedScenarios(): typeof SCENARIOS {
  const raw = process.env['BENCH_SCENARIOS'];
  if (raw === undefined || raw.trim() === '') return SCENARIOS;
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_SCENARIOS: unknown ${unknown.join(', ')} (${SCENARIOS.map((s) => s.name).join(', ')})`,
    );
  }
  return SCENARIOS.filter((s) => names.includes(s.name));
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const missing = missingTools();
  if (missing.length > 0) {
    const hint = missing.includes('wrk') ? ' (apt-get install wrk)' : '';
    out(`npm run bench needs ${missing.join(' and ')}${hint}; nothing measured`);
    return 2;
  }
  const rounds = envCount('BENCH_ROUNDS', 3);
  const seconds = envCount('BENCH_SECONDS', 6);
  const scenarios = selectedScenarios();
  const override = process.env['BENCH_SERVICE_CMD']?.trim() || null;
  const start = startCommand(ROOT);
  const command = override?.split(/\s+/) ?? [process.execPath, ...start.flags, MAIN];
  const timeNpmStart = override === null && process.env['BENCH_NPM_START'] !== '0';

  pin(process.pid, CLIENT_CPU);
  const { work, lua } = loadWorkspace('ipintel-bench-');
  const pathFiles = writePathLists(work);

  let service: Server | null = null;
  const serviceAt = async (
    name: string,
    cwd: string,
    cmd: string[],
    env: Record<string, string>,
    file: string,
  ) => {
    try {
      return await startServer({
        name,
        command: cmd,
        cwd,
        env,
        port: await freePort(),
        cpu: SERVER_CPU,
        errFile: join(work, file),
        readyPath: READY_PATH,
        timeoutMs: 30_000,
      });
    } catch (error) {
      out(`${(error as Error).message}; its stderr ends with:`);
      out(tail(join(work, file)));
      return null;
    }
  };
  const env = override === null ? { ...start.env, ...SERVICE_ENV } : SERVICE_ENV;
  service = await serviceAt('the service', ROOT, command, env, 'service.stderr');
  if (service === null) return 1;
  const againstRoot = process.env['BENCH_AGAINST']?.trim() || null;
  let against: Server | null = null;
  if (againstRoot !== null) {
    const other = startCommand(resolve(againstRoot));
    const otherCommand = [process.execPath, ...other.flags, MAIN];
    const otherEnv = { ...other.env, ...SERVICE_ENV };
    against = await serviceAt(
      `the service in ${againstRoot}`,
      resolve(againstRoot),
      otherCommand,
      otherEnv,
      'against.stderr',
    );
    if (against === null) return 1;
    out(
      `against: ${againstRoot} (BENCH_AGAINST), answered ${READY_PATH} ${against.readyMs} ms after spawn`,
    );
  }
  const bare = await startServer({
    name: 'the bare server',
    command: [process.execPath, join(BENCH_DIR, 'baseline-server.js')],
    cwd: ROOT,
    env: {},
    port: await freePort(),
    cpu: SERVER_CPU,
    errFile: join(work, 'bare.stderr'),
    readyPath: '/',
    timeoutMs: 30_000,
  });
  out(
    `service: ${override ? `${override} (BENCH_SERVICE_CMD)` : `node ${command.slice(1).join(' ')}`}` +
      `, answered ${READY_PATH} ${service.readyMs} ms after spawn`,
  );
  out(
    `both servers on CPU ${SERVER_CPU}; wrk -t1 -c${CONNECTIONS} -d${seconds}s --latency on CPU ${CLIENT_CPU}; ` +
      `${PATH_COUNT.toLocaleString('en')} paths per scenario; a warm-up, then ${rounds} round${rounds === 1 ? '' : 's'} of service, bare`,
  );

  const loadOptions = { lua, seconds, connections: CONNECTIONS, cpu: CLIENT_CPU };
  const summary: string[] = [];
  const failed: string[] = [];
  for (const scenario of scenarios) {
    const pathsFile = pathFiles[scenario.name];
    out(`${scenario.name}: ${scenario.label}`);
    await load(service, { ...loadOptions, pathsFile });
    if (against !== null) await load(against, { ...loadOptions, pathsFile });
    await load(bare, { ...loadOptions, pathsFile });
    const ratios: number[] = [];
    const p99Ratios: number[] = [];
    const sideBySide: { us: number; p99: number }[] = [];
    /** a compatible format's CPU per request ÷ ip4's, loaded on the service just before it */
    const compatCosts: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      let a: ReturnType<typeof figures> | null = null;
      // the two services alternate who goes first, so neither always follows the other
      if (against !== null && round % 2 === 0)
        a = figures(await load(against, { ...loadOptions, pathsFile }));
      // a compatible format: /ip/<random> on the service right before, the same machine load
      const ip4 = COMPAT.has(scenario.name)
        ? figures(await load(service, { ...loadOptions, pathsFile: pathFiles.ip4 }))
        : null;
      const s = figures(await load(service, { ...loadOptions, pathsFile }));
      if (ip4 !== null && Number(ip4.us) > 0) {
        compatCosts.push(Number(s.us) / Number(ip4.us));
        out(
          `  ${scenario.name} round ${round}: ip4 just before ${ip4.text} | ${scenario.name}/ip4 cpu ${(Number(s.us) / Number(ip4.us)).toFixed(3)}`,
        );
      }
      if (against !== null && round % 2 === 1)
        a = figures(await load(against, { ...loadOptions, pathsFile }));
      const b = figures(await load(bare, { ...loadOptions, pathsFile }));
      if (a !== null) {
        const us = Number(s.us) > 0 ? Number(a.us) / Number(s.us) : 0;
        const p99 = Number(a.p99) > 0 ? Number(s.p99) / Number(a.p99) : 99;
        sideBySide.push({ us, p99 });
        out(
          `  ${scenario.name} round ${round}: against ${a.text} | against/service cpu ${us.toFixed(3)} | service/against p99 ${p99.toFixed(2)}`,
        );
      }
      // from the printed (rounded) figures, as perf-bar.sh computes them
      const ratio = Number(s.us) > 0 ? (Number(b.us) / Number(s.us)).toFixed(3) : '0.000';
      const p99Ratio = Number(b.p99) > 0 ? (Number(s.p99) / Number(b.p99)).toFixed(2) : '99.00';
      ratios.push(Number(ratio));
      p99Ratios.push(Number(p99Ratio));
      out(
        `  ${scenario.name} round ${round}: service ${s.text} | bare ${b.text} | cpu ratio ${ratio} | p99 ratio ${p99Ratio}` +
          [...s.problems.map((p) => `service: ${p}`), ...b.problems.map((p) => `bare: ${p}`)]
            .map((p) => ` | ${p}`)
            .join(''),
      );
    }
    if (sideBySide.length > 0) {
      const cpu = sideBySide.map((x) => x.us);
      const p99 = sideBySide.map((x) => x.p99);
      out(
        `  ${scenario.name} side by side: against/service cpu per request median ${median(cpu).toFixed(3)} (rounds ${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), ` +
          `service/against p99 median ${median(p99).toFixed(2)} (${Math.min(...p99).toFixed(2)}–${Math.max(...p99).toFixed(2)})`,
      );
    }
    const ratio = median(ratios);
    const ok = ratio >= scenario.min;
    if (!ok) failed.push(scenario.name);
    let line = `${scenario.name} ${ratio.toFixed(3)}/${scenario.min.toFixed(2)} ${verdict(ok)}`;
    if (scenario.name === 'ip4') {
      const p99Ratio = median(p99Ratios);
      const p99Ok = p99Ratio <= MAX_P99_RATIO;
      if (!p99Ok) failed.push('ip4 p99');
      line += ` (p99x ${p99Ratio.toFixed(2)}/${MAX_P99_RATIO.toFixed(1)} ${verdict(p99Ok)})`;
    }
    summary.push(line);
    if (compatCosts.length > 0) {
      const cost = median(compatCosts);
      const costOk = cost <= MAX_COMPAT_RATIO;
      if (!costOk) failed.push(`${scenario.name}/ip4`);
      summary.push(
        `${scenario.name}/ip4 ${cost.toFixed(3)}/${MAX_COMPAT_RATIO.toFixed(2)} ${verdict(costOk)}`,
      );
    }
  }
  const rss = rssMb(service.pid);
  stop(service.child);
  if (against !== null) stop(against.child);
  stop(bare.child);
  const rssOk = rss <= MAX_RSS_MB;
  if (!rssOk) failed.push('rss');
  const readyOk = service.readyMs <= MAX_READY_MS;
  if (!readyOk) failed.push('ready');
  const tailParts = [
    `rss ${rss}/${MAX_RSS_MB} MB ${verdict(rssOk)}`,
    `ready ${service.readyMs}/${MAX_READY_MS} ms ${verdict(readyOk)}`,
  ];
  if (timeNpmStart) {
    // the same service through `npm start` (npm, then node running the build
    // check and the service), after one untimed build check: a build then
    // (sources changed during the run) is not start-up, and is not killed by
    // the timeout below
    await new Promise((r) => setTimeout(r, 500)); // let the stopped service release memory
    try {
      buildIfStale(join(work, 'npm-start.stderr'));
      const npm = await startServer({
        name: 'npm start',
        command: ['npm', 'start'],
        cwd: ROOT,
        env: SERVICE_ENV,
        port: await freePort(),
        cpu: SERVER_CPU,
        errFile: join(work, 'npm-start.stderr'),
        readyPath: READY_PATH,
        timeoutMs: 120_000,
      });
      stop(npm.child);
      const ok = npm.readyMs <= MAX_NPM_START_READY_MS;
      if (!ok) failed.push('npm start ready');
      tailParts.push(`npm start ready ${npm.readyMs}/${MAX_NPM_START_READY_MS} ms ${verdict(ok)}`);
    } catch (error) {
      out(`${(error as Error).message}; its stderr ends with:`);
      out(tail(join(work, 'npm-start.stderr')));
      failed.push('npm start ready');
      tailParts.push(`npm start ready -/${MAX_NPM_START_READY_MS} ms FAIL`);
    }
  }
  tailParts.push(failed.length === 0 ? 'all PASS' : `FAIL: ${failed.join(', ')}`);
  out(
    `cpu-per-request ratio (bare/service, median of ${rounds}): ${summary.join(' ')} | ${tailParts.join(' | ')}`,
  );
  return 0;
}

/** The figures of one load as perf-bar.sh prints them. */
function figures(l: Load): { us: string; p99: string; text: string; problems: string[] } {
  const us = l.usPerRequest.toFixed(1);
  const p99 = l.p99Ms.toFixed(2);
  const rps = Math.trunc(l.requestsPerSecond);
  return { us, p99, text: `${us} us/req ${rps} req/s p99 ${p99} ms`, problems: l.problems };
}

/** The build check of `npm start` (scripts/build-if-stale.mjs), waiting for it; throws when it fails. */
function buildIfStale(errFile: string): void {
  const err = openSync(errFile, 'a');
  try {
    const result = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', err],
    });
    if (result.error) throw result.error;
    if (result.status !== 0) throw new Error(`the build check exited with ${result.status}`);
  } finally {
    closeSync(err);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-10).join('\n') || '(nothing)';
  } catch {
    return '(nothing)';
  }
}

process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    out(`npm run bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
