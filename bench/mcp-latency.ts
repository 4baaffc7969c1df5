// `npm run bench:mcp`: does an MCP tool call cost what the REST call costs?
// One client, one keep-alive connection, requests one after another
// (latency, not throughput): the median and p90 of `GET /ip/8.8.8.8` and of
// `POST /mcp` `tools/call geoip_lookup {ip: "8.8.8.8"}` against the built
// service (dist/bundle/main.js), interleaved in rounds so that a loaded machine
// slows both alike. BENCH_MCP_REQUESTS (default 2000) per kind and round.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { freePort } from './harness.js';

const REQUESTS = Number(process.env['BENCH_MCP_REQUESTS'] ?? 2000);
const ROUNDS = 3;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'geoip_lookup', arguments: { ip: '8.8.8.8' } },
});

function once(port: number, kind: 'rest' | 'mcp'): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      kind === 'rest'
        ? { host: '127.0.0.1', port, path: '/ip/8.8.8.8', agent }
        : {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': CALL.length },
          },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${kind}: HTTP ${res.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      },
    );
    req.on('error', reject);
    req.end(kind === 'mcp' ? CALL : undefined);
  });
}

async function series(port: number, kind: 'rest' | 'mcp'): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < REQUESTS; i++) out.push(await once(port, kind));
  return out;
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/bundle/main.js'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_MAX: '1000000000' },
    stdio: 'ignore',
  });
  try {
    for (let tries = 0; ; tries++) {
      try {
        await once(port, 'rest');
        break;
      } catch (error) {
        if (tries > 200) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    // warm-up: the SDK is loaded by the first POST /mcp, and both paths get JIT-compiled
    await series(port, 'mcp');
    await series(port, 'rest');
    const all = { rest: [] as number[], mcp: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      all.rest.push(...(await series(port, 'rest')));
      all.mcp.push(...(await series(port, 'mcp')));
    }
    const lines: string[] = [];
    for (const kind of ['rest', 'mcp'] as const) {
      const sorted = all[kind].sort((a, b) => a - b);
      lines.push(
        `${kind === 'rest' ? 'GET /ip/8.8.8.8          ' : 'tools/call geoip_lookup  '} median ${quantile(sorted, 0.5).toFixed(3)} ms  p90 ${quantile(sorted, 0.9).toFixed(3)} ms  (${sorted.length} requests)`,
      );
    }
    const gap = quantile(all.mcp, 0.5) - quantile(all.rest, 0.5);
    lines.push(`median gap (MCP − REST): ${gap.toFixed(3)} ms`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    agent.destroy();
    child.kill();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
