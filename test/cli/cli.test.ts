// The `ipintel` command as a user runs it: the package.json bin's entry in a
// child process (built, or its TypeScript source through tsx: entry.ts), with the network
// lookups pointed at the loopback DNS/RDAP/whois servers through the same
// environment variables as the service. Its answers are compared with the
// HTTP API's for the same input, and its exit codes are checked.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { getOnce } from '../helpers/http-get.js';
import { spawnService } from '../helpers/spawned-service.js';
import { entryArgs } from '../helpers/entry.js';
import { until } from '../helpers/wait.js';
import { startUpstreams, type Upstreams } from '../mcp/setup.js';
import { SERVICE_FLAGS } from '../../src/cli/service-flags.js';

const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
/** dist/src/cli/main.js → src/cli/main.ts: the bin's own source */
const ENTRY = PACKAGE.bin['ipintel']!.replace(/^dist\//, '').replace(/\.js$/, '.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function ipintel(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [...entryArgs(ENTRY), ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

let upstreams: Upstreams;
let service: TestService;
let dir: string;

before(async () => {
  upstreams = await startUpstreams();
  service = await startService({ env: { RATE_LIMIT_MAX: '1000000', ...upstreams.env } });
  // a loaded test machine must not turn a loopback answer into a timeout
  upstreams.env['DNS_TIMEOUT_MS'] = '2000';
  dir = mkdtempSync(join(tmpdir(), 'ipintel-cli-'));
});

after(async () => {
  await service.close();
  await upstreams.close();
  rmSync(dir, { recursive: true, force: true });
});

const rest = async (path: string) => dataOf((await get(service.baseUrl, path)).body);

describe('ipintel lookups', () => {
  it('prints a readable GeoIP summary, and with --json the record of GET /ip/:ip', async () => {
    const readable = await ipintel(['8.8.8.8']);
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(
      readable.stdout,
      /^8\.8\.8\.8: Mountain View, California, US; AS15169 \(Google LLC\)/,
    );
    assert.equal(readable.stderr, '');
    const json = await ipintel(['--json', '8.8.8.8', '2606:4700:4700::1111']);
    assert.equal(json.code, 0);
    const lines = json.stdout.trimEnd().split('\n');
    assert.deepEqual(JSON.parse(lines[0]!), await rest('/ip/8.8.8.8'));
    assert.deepEqual(JSON.parse(lines[1]!), await rest('/ip/2606:4700:4700::1111'));
  });

  it('exit codes: 2 for usage and bad values, 1 for failed lookups; errors on stderr', async () => {
    // the full table of usage errors runs in-process (run.test.ts): these are the real process's statuses
    const cases: { args: string[]; code: number; stderr: RegExp }[] = [
      { args: ['010.1.1.1'], code: 2, stderr: /INVALID_IP/ },
      { args: ['--bogus', '8.8.8.8'], code: 2, stderr: /Unknown option '--bogus'/ },
      { args: ['dns', 'nowhere.example.test'], code: 1, stderr: /NXDOMAIN/ },
      { args: ['enrich', join(tmpdir(), 'no-such-ipintel-file')], code: 1, stderr: /no such file/ },
    ];
    await Promise.all(
      cases.map(async ({ args, code, stderr }) => {
        const run = await ipintel(args, { env: upstreams.env });
        assert.equal(run.code, code, `${args.join(' ')}: ${run.stderr}`);
        assert.match(run.stderr, stderr, args.join(' '));
      }),
    );
  });

  it('cidr reads no GeoIP table: it works with an unreadable GEOIP_DB, a GeoIP lookup does not', async () => {
    const env = { GEOIP_DB: join(dir, 'missing.mmdb') };
    const cidr = await ipintel(['cidr', '10.0.0.0/8'], { env });
    assert.equal(cidr.code, 0, cidr.stderr);
    assert.match(cidr.stdout, /16777214 usable of 16777216/);
    const geo = await ipintel(['8.8.8.8'], { env });
    assert.equal(geo.code, 1);
    assert.match(geo.stderr, /GEOIP_DB/);
  });
});

describe('ipintel enrich', () => {
  const log = [
    '8.8.8.8 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 512 "-" "curl/8"',
    'a line without any address',
    'client [2a00:1450:4001:80e::200e]:443, note "quoted", done',
    '192.168.1.1,local',
  ];

  it('stdin → JSONL: one object per line, GeoIP fields of /ip/:ip, the line itself', async () => {
    const run = await ipintel(['enrich'], { input: `${log.join('\n')}\n` });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '', 'no progress line when stderr is not a terminal');
    const records = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(records.length, 4);
    for (const [i, ip] of ['8.8.8.8', null, '2a00:1450:4001:80e::200e', '192.168.1.1'].entries()) {
      const { line, ...fields } = records[i]!;
      assert.equal(line, log[i]);
      if (ip === null) {
        assert.equal(fields['ip'], null);
        assert.ok(Object.values(fields).every((v) => v === null));
        assert.deepEqual(Object.keys(fields), Object.keys(await rest('/ip/8.8.8.8')));
      } else {
        assert.deepEqual(fields, await rest(`/ip/${ip}`));
      }
    }
  });

  it('a file → CSV with a header and --vpn columns; RFC 4180 quoting', async () => {
    const file = join(dir, 'small.log');
    writeFileSync(file, `${log.join('\r\n')}`); // CRLF, no final line break
    const run = await ipintel(['enrich', '--format', 'csv', '--vpn', file]);
    assert.equal(run.code, 0, run.stderr);
    const rows = run.stdout.trimEnd().split('\n');
    assert.equal(
      rows[0],
      'ip,country,city,region,timezone,latitude,longitude,accuracyRadiusKm,isp,asn,org,bogon,isVpn,isProxy,isHosting,isMobile,isTor,vpnProvider,vpnConfidence,line',
    );
    assert.equal(rows.length, 5);
    assert.match(
      rows[1]!,
      /^8\.8\.8\.8,US,Mountain View,California,.*,false,false,false,true,false,false,,medium,"8\.8\.8\.8 - - .*""GET \/ HTTP\/1\.1"" 200 512 ""-"" ""curl\/8"""$/,
    );
    assert.equal(rows[2], `${','.repeat(19)}a line without any address`);
    assert.match(rows[3]!, /,"client \[2a00:1450:4001:80e::200e\]:443, note ""quoted"", done"$/);
  });

  it('--vpn in JSONL adds the record of GET /ip/:ip/vpn', async () => {
    const run = await ipintel(['enrich', '--vpn'], { input: '8.8.8.8\nnothing\n' });
    const [first, second] = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(first?.['vpn'], await rest('/ip/8.8.8.8/vpn'));
    assert.equal(second?.['vpn'], null);
  });

  it('a 100,000-line file: every line answered, in order', async () => {
    const random = seededRandom();
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const v = random.u32();
      const ip = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
      lines.push(i % 1000 === 999 ? `line ${i} has none` : `${ip} - - "GET /${i}" 200`);
    }
    const file = join(dir, 'large.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await ipintel(['enrich', file]);
    assert.equal(run.code, 0, run.stderr);
    const out = run.stdout.trimEnd().split('\n');
    assert.equal(out.length, 100_000);
    for (let i = 0; i < out.length; i += 997) {
      const record = JSON.parse(out[i]!) as { ip: string | null; line: string };
      assert.equal(record.line, lines[i], `line ${i} (TEST_SEED=${random.seed})`);
      assert.equal(record.ip, lines[i]!.startsWith('line') ? null : lines[i]!.split(' ')[0]);
    }
    const sample = JSON.parse(out[4]!) as Record<string, unknown>;
    delete sample['line'];
    assert.deepEqual(sample, await rest(`/ip/${String(sample['ip'])}`));
  });
});

describe('ipintel serve', () => {
  it("runs the service in a process of its own with npm start's young generation; passes SIGHUP on; SIGTERM stops both", async () => {
    const served = await spawnService({ LOG_LEVEL: 'info' }, [ENTRY, 'serve']);
    try {
      assert.equal((await getOnce(served.port, '/ip/8.8.8.8')).status, 200);
      // the service logs its own pid (pino): a child of the CLI's process
      const servicePid = (JSON.parse(served.stdout().split('\n')[0]!) as { pid: number }).pid;
      assert.notEqual(servicePid, served.pid);
      const flags = readFileSync(`/proc/${servicePid}/cmdline`, 'utf8').split('\0');
      for (const flag of SERVICE_FLAGS) assert.ok(flags.includes(flag), flags.join(' '));
      served.kill('SIGHUP');
      await until(() => served.stdout().includes('"reason":"SIGHUP"'), 10_000, 50);
      assert.equal((await getOnce(served.port, '/healthz')).status, 200);
      served.kill('SIGTERM');
      assert.equal(await served.exited, 0);
      assert.ok(served.stdout().includes('shutting down'), served.stdout());
    } finally {
      served.kill();
    }
  });

  it("a service that stops at start-up (a bad PORT) is the command's exit status, its message on stderr", async () => {
    const run = await ipintel(['serve'], { env: { PORT: 'not-a-port' } });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /Invalid configuration:\n  PORT: /);
  });
});
