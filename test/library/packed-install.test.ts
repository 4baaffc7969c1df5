// The package as a user gets it: `npm pack` of this tree, `npm install` of the
// tarball into an empty project (its dependencies from the npm cache, or the
// registry), and there `import { openLookups } from 'ipintel'` answers what
// the library answers here, a TypeScript file using its types compiles (and
// one misusing them does not), and the `ipintel` bin runs. Slow (50 s of CPU:
// the tarball holds the 120 MB of tables, and npm copies every dependency), so
// it runs in `npm run test:full` (CI runs both) and `npm test` names it skipped.
import { strict as assert } from 'node:assert';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { openLookups } from '../../src/library/index.js';
import { formatIpv4 } from '../../src/net/ip.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { FULL } from '../helpers/scale.js';
import { silentLog } from '../helpers/service.js';

const random = seededRandom();
const ADDRESSES = [
  '8.8.8.8',
  '2606:4700:4700::1111',
  '10.0.0.1',
  ...Array.from({ length: 200 }, () => formatIpv4(random.u32())),
];

/** Runs a command to its end (10 minutes at most); its output is in the failure message. */
function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 600_000,
    // the project's own settings must not reach the consumer (DATA_DIR, …)
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? tmpdir() },
  });
  return result;
}

function runOk(command: string, args: string[], cwd: string): string {
  const result = run(command, args, cwd);
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(' ')} (seed ${random.seed}):\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

const CONSUMER_SCRIPT = `
import { openLookups } from 'ipintel';
const lookups = await openLookups({ env: {} });
const addresses = JSON.parse(process.argv[2]);
const answers = addresses.map((ip) => [lookups.geo(ip), lookups.vpn(ip), lookups.lookup(ip)]);
lookups.close();
process.stdout.write(JSON.stringify(answers));
`;

const TYPED = `
import { openLookups, type GeoIpRecord, type GeoipLiteAnswer, type Lookups, type VpnDetection } from 'ipintel';
const lookups: Lookups = await openLookups({ dataDir: '/nowhere', env: {} });
const geo: GeoIpRecord = lookups.geo('8.8.8.8');
const country: string | null = geo.country;
const vpn: VpnDetection = lookups.vpn('8.8.8.8');
const flag: boolean = vpn.isVpn;
const lite: GeoipLiteAnswer | null = lookups.lookup(134744072);
const ll: [number | null, number | null] | undefined = lite?.ll;
console.log(country, flag, ll);
await lookups.reload();
lookups.close();
`;

/** the one misuse: a country (string | null) where a number is wanted */
const MISTYPED = `
import { openLookups } from 'ipintel';
const lookups = await openLookups();
export const wrong: number = lookups.geo('8.8.8.8').country;
`;

describe(
  'the packed package, installed in an empty project',
  { skip: FULL ? false : 'npm pack and install: run by npm run test:full' },
  () => {
    let work: string;
    let project: string;

    before(() => {
      // the tarball carries dist/: built from the sources as they are (a no-op when current)
      runOk(process.execPath, ['scripts/build-if-stale.mjs'], PROJECT_ROOT);
      work = mkdtempSync(join(tmpdir(), 'ipintel-pack-'));
      project = join(work, 'consumer');
      // --ignore-scripts: `prepare` (a forced build and the data's preparation) is the installer's step
      runOk('npm', ['pack', '--ignore-scripts', '--pack-destination', work], PROJECT_ROOT);
      const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
      assert.ok(tarball !== undefined, 'npm pack made no tarball');
      runOk('mkdir', ['-p', project], work);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      );
      runOk(
        'npm',
        ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund'],
        project,
      );
    });

    after(() => {
      if (work !== undefined) rmSync(work, { recursive: true, force: true });
    });

    it("answers there as the library answers here: geo, vpn and geoip-lite's lookup", async () => {
      writeFileSync(join(project, 'consumer.mjs'), CONSUMER_SCRIPT);
      const there = JSON.parse(
        runOk(process.execPath, ['consumer.mjs', JSON.stringify(ADDRESSES)], project),
      ) as unknown[];
      const here = await openLookups({ env: {}, logger: silentLog });
      try {
        const expected = ADDRESSES.map((ip) => [here.geo(ip), here.vpn(ip), here.lookup(ip)]);
        assert.deepEqual(there, JSON.parse(JSON.stringify(expected)), `seed ${random.seed}`);
        assert.equal((there[0] as [{ asn: string }])[0].asn, 'AS15169');
      } finally {
        here.close();
      }
    });

    it('types the library for TypeScript: a correct use compiles, a misuse does not', () => {
      writeFileSync(join(project, 'typed.ts'), TYPED);
      writeFileSync(join(project, 'mistyped.ts'), MISTYPED);
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      // no --skipLibCheck: every declaration the library's types reach must
      // compile with the package's dependencies alone (a type from a
      // devDependency, such as @types/dns-packet behind config.ts, fails here)
      const options = [
        '--noEmit',
        '--strict',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        // the project's @types/node, as a TypeScript project using Node has its own
        '--typeRoots',
        join(PROJECT_ROOT, 'node_modules', '@types'),
        '--types',
        'node',
      ];
      // one compiler run over both (it is the slow part): the misuse is its one error
      const result = run(process.execPath, [tsc, ...options, 'typed.ts', 'mistyped.ts'], project);
      assert.notEqual(result.status, 0);
      const errors = result.stdout.split('\n').filter((line) => line.includes('error TS'));
      assert.equal(errors.length, 1, result.stdout);
      assert.match(errors[0]!, /^mistyped\.ts\(4,14\): error TS2322/);
    });

    it('keeps the ipintel bin working', () => {
      const out = runOk(
        join(project, 'node_modules', '.bin', 'ipintel'),
        ['8.8.8.8', '--json'],
        project,
      );
      assert.equal((JSON.parse(out) as { asn: string }).asn, 'AS15169');
    });
  },
);
