// The exported files read by the tools that read MaxMind's: libmaxminddb's
// mmdblookup, Python's maxminddb and geoip2 (city(), asn(), anonymous_ip(),
// which check database_type), and nginx with ngx_http_geoip2_module started
// on loopback with the three files, putting country, ASN and
// is_anonymous_vpn into response headers. scripts/ensure-mmdb-readers.sh
// installs Debian's packages when one is missing. The data: small GEOIP_DB
// and ASN_DB files, a VPN provider's list and a Tor list, exported by
// `ipintel export` itself.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../src/cli/run.js';
import { EXPORT_FILES } from '../../src/kit/export-files.js';
import { writeSmallGeoData } from './small-geo-data.js';
import { freePort } from '../helpers/ports.js';
import { nginxHttpScratch, nginxMain } from '../helpers/nginx.js';
import { storedFeed, vpnHostFeed, writeFeeds } from '../helpers/vpn-feeds.js';
import { serviceData } from '../helpers/service.js';
import { loadConfig } from '../../src/config.js';
import { createGeoIpLookup } from '../../src/lookups/geoip/geoip.js';
import { createVpnJson } from '../../src/lookups/vpn/record-json.js';
import { cidrRanges } from '../../src/net/range-boundaries.js';
import { parseIp } from '../../src/net/ip.js';
import { readFile } from 'node:fs/promises';

const ENSURE = fileURLToPath(new URL('../../scripts/ensure-mmdb-readers.sh', import.meta.url));
const PYTHON = '/usr/bin/python3';
const NGINX_MODULE = '/usr/lib/nginx/modules/ngx_http_geoip2_module.so';

let dir: string;
let out: string;
let env: Record<string, string>;
const file = (kind: 'city' | 'asn' | 'anonymous') => join(out, EXPORT_FILES[kind]);

before(async () => {
  const install = spawnSync('sh', [ENSURE], { stdio: ['ignore', 'ignore', 'inherit'] });
  assert.equal(install.status, 0, `${ENSURE} failed: the readers are needed`);
  dir = await mkdtemp(join(tmpdir(), 'ipintel-readers-'));
  out = join(dir, 'out');
  const { city, asn } = await writeSmallGeoData(dir);
  await writeFeeds(dir, [
    vpnHostFeed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11']),
    storedFeed('tor-exits', 'tor', ['81.2.69.66/32']),
  ]);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let errors = '';
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  env = { GEOIP_DB: city, ASN_DB: asn, DATA_DIR: dir, LOG_LEVEL: 'silent' };
  const outcome = await runCli(['export', '--out', out], {
    env,
    stdin: new PassThrough(),
    stdout,
    stderr,
  });
  assert.deepEqual(outcome, { code: 0 }, errors);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000 });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe('mmdblookup (libmaxminddb)', () => {
  it('finds country, city, ASN and the VPN flag, IPv4 as itself and IPv4-mapped', () => {
    const lookup = (kind: 'city' | 'asn' | 'anonymous', ip: string, ...path: string[]) =>
      run('mmdblookup', ['--file', file(kind), '--ip', ip, ...path]).trim();
    assert.match(lookup('city', '81.2.69.160', 'country', 'iso_code'), /^"GB" <utf8_string>$/);
    assert.match(lookup('city', '::ffff:81.2.69.160', 'city', 'names', 'en'), /"London"/);
    assert.match(lookup('city', '2a02:d0c0::1', 'country', 'iso_code'), /"DE"/);
    assert.match(lookup('asn', '81.2.69.160', 'autonomous_system_number'), /^20712 <uint32>$/);
    assert.match(lookup('anonymous', '185.65.134.10', 'is_anonymous_vpn'), /^true <boolean>$/);
    assert.match(lookup('anonymous', '185.65.134.10', 'provider'), /"Mullvad"/);
    assert.match(lookup('anonymous', '81.2.69.66', 'is_tor_exit_node'), /^true <boolean>$/);
    // metadata: the database type readers check, and the attribution of the data
    const meta = run('mmdblookup', ['--file', file('city'), '--ip', '81.2.69.160', '--verbose']);
    assert.match(meta, /Type:\s+GeoIP2-City/);
  });
});

describe("Python's maxminddb and geoip2", () => {
  it('city(), asn() and anonymous_ip() accept the files and read the answers', () => {
    const script = `
import json, sys, geoip2.database, maxminddb
city, asn, anon = sys.argv[1:4]
with geoip2.database.Reader(city) as r:
    c = r.city('81.2.69.160')
    m = r.city('::ffff:81.2.69.160')
    out = {'country': c.country.iso_code, 'city': c.city.name, 'region': c.subdivisions.most_specific.name,
           'lat': c.location.latitude, 'lon': c.location.longitude, 'tz': c.location.time_zone,
           'continent': c.continent.code, 'mapped': m.country.iso_code}
with geoip2.database.Reader(asn) as r:
    a = r.asn('185.65.134.10')
    out['asn'] = a.autonomous_system_number
    out['org'] = a.autonomous_system_organization
with geoip2.database.Reader(anon) as r:
    v = r.anonymous_ip('185.65.134.10')
    out['vpn'] = v.is_anonymous_vpn
    out['anonymous'] = v.is_anonymous
    t = r.anonymous_ip('81.2.69.66')
    out['tor'] = t.is_tor_exit_node
with maxminddb.open_database(anon) as r:
    out['provider'] = r.get('185.65.134.10')['provider']
    out['type'] = r.metadata().database_type
print(json.dumps(out))
`;
    const answer = JSON.parse(
      run(PYTHON, ['-c', script, file('city'), file('asn'), file('anonymous')]),
    ) as Record<string, unknown>;
    assert.deepEqual(answer, {
      country: 'GB',
      city: 'London',
      region: 'England',
      lat: 51.5142,
      lon: -0.0931,
      tz: 'Europe/London',
      continent: 'EU',
      mapped: 'GB',
      asn: 39351,
      org: '31173 Services AB',
      vpn: true,
      anonymous: true,
      tor: true,
      provider: 'Mullvad',
      type: 'GeoIP2-Anonymous-IP',
    });
  });
});

describe('nginx with ngx_http_geoip2_module', () => {
  let nginx: ChildProcess | null = null;
  let port = 0;

  before(async () => {
    port = await freePort();
    const conf = join(dir, 'nginx.conf');
    await writeFile(
      conf,
      `load_module ${NGINX_MODULE};
${nginxMain(dir)}
master_process off;
events { worker_connections 64; }
http {
${nginxHttpScratch(dir)}
  geoip2 ${file('city')} { $ip_country source=$http_x_client_ip country iso_code; }
  geoip2 ${file('asn')} { $ip_asn source=$http_x_client_ip autonomous_system_number; }
  geoip2 ${file('anonymous')} { $ip_vpn default=0 source=$http_x_client_ip is_anonymous_vpn; }
  server {
    listen 127.0.0.1:${port};
    location / {
      add_header X-Country $ip_country always;
      add_header X-ASN $ip_asn always;
      add_header X-VPN $ip_vpn always;
      return 204;
    }
  }
}
`,
    );
    nginx = spawn('/usr/sbin/nginx', ['-p', dir, '-c', conf, '-e', join(dir, 'nginx-error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    nginx.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    for (let i = 0; i < 100; i++) {
      if (nginx.exitCode !== null) assert.fail(`nginx exited: ${stderr}`);
      try {
        await fetch(`http://127.0.0.1:${port}/`);
        return;
      } catch {
        await sleep(50);
      }
    }
    assert.fail(`nginx did not answer on 127.0.0.1:${port}: ${stderr}`);
  });

  after(async () => {
    if (nginx !== null && nginx.exitCode === null) {
      nginx.kill('SIGTERM');
      await once(nginx, 'exit');
    }
  });

  it('puts country, ASN and is_anonymous_vpn into the response headers', async () => {
    const headers = async (ip: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        headers: { 'X-Client-IP': ip },
      });
      return {
        country: response.headers.get('x-country'),
        asn: response.headers.get('x-asn'),
        vpn: response.headers.get('x-vpn'),
      };
    };
    assert.deepEqual(await headers('185.65.134.10'), { country: 'SE', asn: '39351', vpn: '1' });
    assert.deepEqual(await headers('81.2.69.160'), { country: 'GB', asn: '20712', vpn: '0' });
    assert.deepEqual(await headers('::ffff:185.65.134.11'), {
      country: 'SE',
      asn: '39351',
      vpn: '1',
    });
    assert.deepEqual(await headers('2a02:d0c0::1'), { country: 'DE', asn: null, vpn: '0' });
  });
});

/** RFC 4180 fields of one line (no line breaks inside the export's fields). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let text = '';
      let i = at + 1;
      for (;;) {
        const quote = line.indexOf('"', i);
        text += line.slice(i, quote);
        if (line[quote + 1] === '"') {
          text += '"';
          i = quote + 2;
        } else {
          at = quote + 2;
          break;
        }
      }
      fields.push(text);
    } else {
      const comma = line.indexOf(',', at);
      const end = comma < 0 ? line.length : comma;
      fields.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return fields;
}

describe('ipintel-ranges.csv', () => {
  it('each row: its CIDRs cover exactly start–end, and both ends answer its columns as the API', async () => {
    const data = await serviceData(loadConfig(env));
    const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
    const vpn = createVpnJson(geoip, data.vpn);
    const columns = (address: string): string[] => {
      const ip = parseIp(address)!;
      const g = geoip.lookup(ip);
      const d = vpn.detection(ip);
      const values: (string | number | boolean | null)[] = [g.country, g.region, g.city];
      values.push(g.latitude, g.longitude, g.timezone);
      values.push(g.asn, g.org, g.isp, d.isVpn, d.isProxy, d.isHosting, d.isMobile, d.isTor);
      values.push(d.provider, d.confidence, d.reasons.join(' '));
      return values.map((v) => (v === null ? '' : String(v)));
    };
    const lines = (await readFile(join(out, EXPORT_FILES.csv), 'utf8')).split('\n');
    assert.equal(lines.pop(), '', 'the file ends with a line break');
    assert.match(lines[0]!, /^start,end,cidr,country,/);
    const rows = lines.slice(1).map(csvFields);
    assert.ok(rows.length > 5, `${rows.length} rows`);
    let previousEnd: { v4: number; v6: bigint } = { v4: -1, v6: -1n };
    for (const [start, end, cidrs, ...rest] of rows) {
      assert.equal(rest.length, 17, start);
      const { v4, v6 } = cidrRanges(cidrs!.split(' '));
      if (v4.length > 0) {
        assert.equal(v6.length, 0);
        assert.equal(cidrRanges([`${start}/32`]).v4[0]!.start, v4[0]!.start, start);
        assert.equal(cidrRanges([`${end}/32`]).v4[0]!.start, v4.at(-1)!.end, end);
        v4.forEach((r, i) => i === 0 || assert.equal(r.start, v4[i - 1]!.end + 1, cidrs));
        assert.ok(v4[0]!.start > previousEnd.v4, `${start}: rows in order, apart`);
        previousEnd = { ...previousEnd, v4: v4.at(-1)!.end };
      } else {
        assert.equal(cidrRanges([`${start}/128`]).v6[0]!.start, v6[0]!.start, start);
        assert.equal(cidrRanges([`${end}/128`]).v6[0]!.start, v6.at(-1)!.end, end);
        v6.forEach((r, i) => i === 0 || assert.equal(r.start, v6[i - 1]!.end + 1n, cidrs));
        assert.ok(v6[0]!.start > previousEnd.v6, `${start}: rows in order, apart`);
        previousEnd = { ...previousEnd, v6: v6.at(-1)!.end };
      }
      assert.deepEqual(rest, columns(start!), start);
      assert.deepEqual(rest, columns(end!), end);
    }
    const london = rows.find((r) => r[5] === 'London' && r[16] === 'true');
    assert.ok(london, 'the Tor exit in the London /24 has a row of its own');
    assert.equal(london[0], '81.2.69.66');
    assert.equal(london[1], '81.2.69.66');
    const exits = rows.find((r) => r[0] === '185.65.134.10');
    assert.deepEqual(exits?.slice(1, 3), ['185.65.134.11', '185.65.134.10/31']);
    assert.equal(exits[17], 'Mullvad');
    const rest = rows.find((r) => r[0] === '185.65.134.12');
    assert.equal(
      rest?.[2],
      '185.65.134.12/30 185.65.134.16/28 185.65.134.32/27 185.65.134.64/26 185.65.134.128/25',
    );
  });
});

/** The SQL of docs/export.md's DuckDB example, its statements in order. */
async function documentedDuckDbQuery(): Promise<string[]> {
  const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'export.md'), 'utf8');
  const sql = /## CSV and range joins[\s\S]*?```sql\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(sql !== undefined, 'docs/export.md has the DuckDB query');
  return sql
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

describe('DuckDB (@duckdb/node-api): the documented query enriching a log', () => {
  it('joins a log’s IPv4 addresses to the CSV’s ranges as docs/export.md says', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const log = join(dir, 'access.log');
    await writeFile(
      log,
      [
        '81.2.69.160 - - [27/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 512',
        '185.65.134.10 - - [27/Nov/2026:10:00:01 +0000] "GET /a HTTP/1.1" 200 64',
        '2a02:d0c0::1 - - [27/Nov/2026:10:00:02 +0000] "GET /b HTTP/1.1" 200 64',
        '192.0.2.1 - - [27/Nov/2026:10:00:03 +0000] "GET /c HTTP/1.1" 404 0',
      ].join('\n') + '\n',
    );
    const statements = (await documentedDuckDbQuery()).map((statement) =>
      statement
        .replaceAll("'ipintel-ranges.csv'", `'${join(out, EXPORT_FILES.csv)}'`)
        .replaceAll("'access.log'", `'${log}'`),
    );
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    try {
      for (const statement of statements.slice(0, -1)) await connection.run(statement);
      const result = await connection.runAndReadAll(statements.at(-1)!);
      const rows = result.getRowObjectsJson() as Record<string, unknown>[];
      const byIp = new Map(rows.map((r) => [r['ip'], r]));
      // IPv4 lines only; a documentation address (no row in the CSV) finds nothing
      assert.deepEqual([...byIp.keys()].sort(), ['185.65.134.10', '81.2.69.160']);
      assert.deepEqual(
        [byIp.get('81.2.69.160')?.['country'], byIp.get('81.2.69.160')?.['city']],
        ['GB', 'London'],
      );
      assert.equal(byIp.get('81.2.69.160')?.['asn'], 'AS20712');
      assert.equal(byIp.get('185.65.134.10')?.['is_vpn'], 'true');
      assert.equal(byIp.get('185.65.134.10')?.['provider'], 'Mullvad');
    } finally {
      connection.closeSync();
    }
  });
});
