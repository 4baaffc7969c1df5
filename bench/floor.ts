// `npm run bench:floor`: how close the service is to the least a GeoIP answer
// can cost on node:http under CONTRACT.md (bench/floor-server.ts). Each round
// loads the bare baseline and one candidate at the same time, both pinned to
// CPU 0 (one client each on CPU 1), and compares their CPU time per request:
// a cost ratio that a noisy machine does not move (see BENCHMARKS.md).
import { join } from 'node:path';
import {
  SERVICE_FLAGS,
  concurrentCost,
  here,
  load,
  pin,
  randomPublicIpv4,
  start,
  type Started,
} from './harness.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);

pin(process.pid, 1);
const baseline = await start(join(here, 'baseline-server.js'), {});
const floor = await start(join(here, 'floor-server.js'), {}, true, SERVICE_FLAGS);
const service = await start(
  join(here, '..', 'src', 'main.js'),
  { HOST: '127.0.0.1', RATE_LIMIT_MAX: '1000000000', LOG_LEVEL: 'info' },
  true,
  SERVICE_FLAGS,
);

const paths: { name: string; path: string | (() => string) }[] = [
  { name: 'GeoIP, same address (cache hit)', path: '/ip/8.8.8.8' },
  { name: 'GeoIP, random public IPv4 (cache miss)', path: () => `/ip/${randomPublicIpv4()}` },
];
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

for (const { name, path } of paths) {
  const ratios: Record<'floor' | 'service', number[]> = { floor: [], service: [] };
  for (const server of [floor, service, baseline]) {
    await load(server.port, server.child.pid ?? 0, path, 2);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, candidate] of [
      ['floor', floor],
      ['service', service],
    ] as [keyof typeof ratios, Started][]) {
      const cost = await concurrentCost(baseline, candidate, path);
      if (cost === null) throw new Error('no /proc: the cost comparison needs Linux');
      ratios[label].push(cost[0] / cost[1]);
    }
  }
  const show = (values: number[]) =>
    `${median(values).toFixed(2)} (rounds: ${values.map((v) => v.toFixed(2)).join(', ')})`;
  process.stdout.write(
    `${name}\n  hand-inlined floor  cost ratio ${show(ratios.floor)}\n  service             cost ratio ${show(ratios.service)}\n`,
  );
}
for (const server of [baseline, floor, service]) server.child.kill();
process.stdout.write(
  `\ncost ratio = baseline CPU per request / candidate CPU per request, both loaded at once; ${ROUNDS} rounds of ${process.env['BENCH_SECONDS'] ?? 10} s.\n`,
);
