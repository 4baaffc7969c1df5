// runCli in-process, its streams in memory: every lookup subcommand against
// the route it runs (REST over loopback, the network lookups answered by the
// loopback DNS/RDAP/whois servers), --help everywhere, and the usage errors.
// The process itself (exit codes, stdin, files) is tested in cli.test.ts.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runCli, type CliOutcome } from '../../src/cli/run.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import { startUpstreams, type Upstreams } from '../mcp/setup.js';

let upstreams: Upstreams;
let service: TestService;

before(async () => {
  upstreams = await startUpstreams();
  upstreams.env['DNS_TIMEOUT_MS'] = '2000';
  service = await startService({ env: { RATE_LIMIT_MAX: '1000000', ...upstreams.env } });
});

after(async () => {
  await service.close();
  await upstreams.close();
});

async function run(
  args: string[],
): Promise<{ outcome: CliOutcome; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const outcome = await runCli(args, {
    env: upstreams.env,
    stdin: new PassThrough(),
    stdout,
    stderr,
  });
  return { outcome, stdout: out, stderr: err };
}

const rest = async (path: string) => dataOf((await get(service.baseUrl, path)).body);

describe('ipintel subcommands (in-process)', () => {
  const cases: { args: string[]; path: string }[] = [
    { args: ['vpn', '8.8.8.8'], path: '/ip/8.8.8.8/vpn' },
    { args: ['ip', '2a00:1450:4001:80e::200e'], path: '/ip/2a00:1450:4001:80e::200e' },
    { args: ['whois', '23.0.2.10'], path: '/whois/23.0.2.10' },
    { args: ['dns', 'example.test', '--type', 'mx'], path: '/dns/example.test?type=MX' },
    { args: ['dns', 'example.test'], path: '/dns/example.test' },
    { args: ['reverse', '192.0.2.10'], path: '/dns/192.0.2.10/reverse' },
    { args: ['blacklist', '127.0.0.2'], path: '/blacklist/127.0.0.2' },
    { args: ['cidr', '2001:db8::/48'], path: '/cidr?range=2001:db8::/48' },
    { args: ['cidr', '10.1.2.3/8'], path: '/cidr?range=10.1.2.3/8' },
  ];
  for (const { args, path } of cases) {
    it(`${args.join(' ')} answers what GET ${path} answers`, async () => {
      const json = await run([...args, '--json']);
      assert.deepEqual(json.outcome, { code: 0 }, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout), await rest(path));
      const readable = await run(args);
      assert.deepEqual(readable.outcome, { code: 0 });
      assert.ok(readable.stdout.length > 10 && !readable.stdout.startsWith('{'), readable.stdout);
    });
  }

  it('reverse shows which names are forward-confirmed', async () => {
    const readable = await run(['reverse', '192.0.2.10']);
    assert.match(
      readable.stdout,
      /host\.example\.test \(confirmed\), alias\.example\.test \(not confirmed\)/,
    );
  });

  const help = [
    'vpn',
    'whois',
    'dns',
    'reverse',
    'blacklist',
    'cidr',
    'enrich',
    'serve',
    'update-data',
  ];
  for (const args of [['--help'], ['-h'], ...help.map((c) => [c, '--help']), ['dns', '-h']]) {
    it(`${args.join(' ')} prints its help and exits 0`, async () => {
      const { outcome, stdout } = await run(args);
      assert.deepEqual(outcome, { code: 0 });
      assert.match(stdout, /^(Usage: ipintel|ipintel: IP intelligence)/);
    });
  }

  const usage: { args: string[]; stderr: RegExp }[] = [
    { args: [], stderr: /^$/ }, // the help goes to stdout
    { args: ['vpn'], stderr: /vpn needs at least one argument/ },
    { args: ['cidr', '10.0.0.0/33'], stderr: /INVALID_RANGE/ },
    { args: ['dns', 'example.test', '--type', 'SRV'], stderr: /INVALID_TYPE/ },
    { args: ['dns', 'bad..name'], stderr: /INVALID_DOMAIN/ },
    { args: ['blacklist', '2001:db8::1'], stderr: /IPV4_ONLY/ },
    { args: ['enrich', '--format', 'xml'], stderr: /--format is jsonl or csv/ },
    { args: ['enrich', 'a', 'b'], stderr: /one FILE/ },
    { args: ['cidr', '--type', 'A', '10.0.0.0/8'], stderr: /Unknown option '--type'/ },
    { args: ['serve', 'now'], stderr: /serve takes no arguments/ },
  ];
  for (const { args, stderr } of usage) {
    it(`${args.join(' ') || '(nothing)'} → exit 2`, async () => {
      const result = await run(args);
      assert.deepEqual(result.outcome, { code: 2 });
      assert.match(result.stderr, stderr);
    });
  }

  it('a failed lookup among good ones: exit 1, the others still answered', async () => {
    const { outcome, stdout, stderr } = await run(['dns', 'example.test', 'nowhere.example.test']);
    assert.deepEqual(outcome, { code: 1 });
    assert.match(stdout, /example\.test 120 A 192\.0\.2\.10/);
    assert.match(stderr, /NXDOMAIN/);
  });

  it('serve and update-data hand the process over with their own arguments', async () => {
    assert.deepEqual((await run(['serve'])).outcome, { become: 'serve', args: [] });
    assert.deepEqual((await run(['update-data', '--only', 'tor'])).outcome, {
      become: 'update-data',
      args: ['--only', 'tor'],
    });
  });
});
