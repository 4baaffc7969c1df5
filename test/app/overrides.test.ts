// The operator's overrides through the real service: GET /ip/:ip, /vpn,
// POST /batch, the MCP tools, `ipintel ip` and `ipintel enrich`, GET / and
// /readyz; a file changed on disk and reloaded; a bad file refused whole,
// the previous overrides answering on.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../src/cli/run.js';
import { dataOf, get, serviceData, startService, type TestService } from '../helpers/service.js';

const FILE = [
  'network,country,city,latitude,longitude,label,isVpn,asn,org,provider',
  // a public address moved: the data's region and time zone (of its old country) go
  '8.8.8.0/24,DE,Berlin,52.52,13.405,berlin-office,,,,',
  // private space given a place; a more specific range inside it wins whole
  '10.0.0.0/8,DE,,,,corp,,,,',
  '10.1.0.0/16,,Munich,,,munich,,,,',
  // the office VPN's pool: a detection answer that says so
  '10.8.0.0/16,,,,,office-vpn,true,AS64500,Example VPN,Example Corp',
  '"2001:db8::/32",FR,"Paris, 1er",,,doc-v6,,,,',
].join('\r\n');

let dir: string;
let file: string;
let service: TestService;

async function ip(address: string) {
  return dataOf((await get(service.baseUrl, `/ip/${address}`)).body);
}
async function vpn(address: string) {
  return dataOf((await get(service.baseUrl, `/ip/${address}/vpn`)).body);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-overrides-'));
  file = join(dir, 'overrides.csv');
  await writeFile(file, FILE);
  service = await startService({ env: { DATA_DIR: dir, RATE_LIMIT_MAX: '100000' } });
});

after(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

describe('overrides on GET /ip/:ip', () => {
  it('sets the fields a row gives; the others come from the data', async () => {
    const record = await ip('8.8.8.8');
    assert.equal(record['country'], 'DE');
    assert.equal(record['city'], 'Berlin');
    assert.equal(record['latitude'], 52.52);
    assert.equal(record['longitude'], 13.405);
    // another country: the data's region and time zone were California's
    assert.equal(record['region'], null);
    assert.equal(record['timezone'], null);
    // the network is the data's: the row says nothing of it
    assert.equal(record['asn'], 'AS15169');
    assert.equal(record['bogon'], false);
    // outside the row's range, the data alone
    assert.equal((await ip('8.8.4.4'))['country'], 'US');
  });

  it('the most specific range wins; a private address with a place stays a bogon', async () => {
    const table = [
      { address: '10.1.2.3', want: { country: null, city: 'Munich' } }, // the /16, whole
      { address: '10.2.3.4', want: { country: 'DE', city: null } }, // the /8
      { address: '2001:db8::1', want: { country: 'FR', city: 'Paris, 1er' } },
    ];
    for (const { address, want } of table) {
      const record = await ip(address);
      assert.deepEqual({ country: record['country'], city: record['city'] }, want, address);
    }
    assert.equal((await ip('10.1.2.3'))['bogon'], true);
  });
});

describe('overrides on detection answers', () => {
  it('sets the flags with confidence high and says override:<label> in reasons', async () => {
    const record = await vpn('10.8.0.1');
    assert.equal(record['isVpn'], true);
    assert.equal(record['confidence'], 'high');
    assert.equal(record['asn'], 'AS64500');
    assert.equal(record['org'], 'Example VPN');
    assert.equal(record['provider'], 'Example Corp');
    assert.ok((record['reasons'] as string[]).includes('override:office-vpn'));
  });

  it('a row that sets nothing of detection leaves the detection answer alone', async () => {
    const record = await vpn('8.8.8.8');
    assert.ok(!(record['reasons'] as string[]).some((r) => r.startsWith('override:')));
  });
});

describe('overrides everywhere an answer is made', () => {
  it('POST /batch with ?include=vpn', async () => {
    const res = await get(service.baseUrl, '/batch?include=vpn', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(['8.8.8.8', '10.8.0.1', '8.8.4.4']),
    });
    assert.equal(res.status, 200);
    const results = dataOf<{ results: { data: Record<string, unknown> }[] }>(res.body).results;
    assert.equal(results[0]!.data['city'], 'Berlin');
    assert.equal((results[1]!.data['vpn'] as Record<string, unknown>)['isVpn'], true);
    assert.equal(results[2]!.data['country'], 'US');
    // the batch's records are the single lookups' records
    const { vpn: verdict, ...geo } = results[1]!.data;
    assert.deepEqual(geo, await ip('10.8.0.1'));
    assert.deepEqual(verdict, await vpn('10.8.0.1'));
  });

  it('the MCP tools', async () => {
    const call = async (name: string, address: string) => {
      const res = await fetch(`${service.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: { ip: address } },
        }),
      });
      const body = (await res.json()) as {
        result: { structuredContent: Record<string, unknown> };
      };
      return body.result.structuredContent;
    };
    assert.deepEqual(await call('geoip_lookup', '8.8.8.8'), await ip('8.8.8.8'));
    assert.deepEqual(await call('vpn_detect', '10.8.0.1'), await vpn('10.8.0.1'));
  });

  it('the web page', async () => {
    const page = await get(service.baseUrl, '/?q=10.8.0.1', { headers: { accept: 'text/html' } });
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.text, /override:office-vpn/);
    const berlin = await get(service.baseUrl, '/?q=8.8.8.8', { headers: { accept: 'text/html' } });
    assert.match(berlin.text, /Berlin/);
    assert.doesNotMatch(berlin.text, /Mountain View/);
  });

  it('the CLI: `ipintel ip` and `ipintel enrich`', async () => {
    const cli = async (args: string[], input = '') => {
      const stdout = new PassThrough();
      let out = '';
      stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      const stdin = new PassThrough();
      stdin.end(input);
      const outcome = await runCli(args, {
        env: { DATA_DIR: dir },
        stdin,
        stdout,
        stderr: new PassThrough(),
      });
      assert.deepEqual(outcome, { code: 0 });
      return out;
    };
    assert.deepEqual(JSON.parse(await cli(['ip', '8.8.8.8', '--json'])), await ip('8.8.8.8'));
    const lines = (await cli(['enrich', '--vpn'], 'login from 10.8.0.7\nlogin from 8.8.8.8\n'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => [l['city'], l['country'], (l['vpn'] as Record<string, unknown>)['isVpn']]),
      [
        [null, null, true], // 10.8.0.0/16: the VPN pool (the /8's country: not the /16's)
        ['Berlin', 'DE', false],
      ],
    );
    assert.deepEqual(
      (await cli(['enrich', '--format', 'csv'], '8.8.8.8\n')).split('\n')[1]?.includes('Berlin'),
      true,
    );
  });
});

describe('overrides: status, reload and refusal', () => {
  it('GET / shows the file, its row count and when it was loaded', async () => {
    const info = dataOf((await get(service.baseUrl, '/')).body);
    const overrides = info['overrides'] as Record<string, unknown>;
    assert.equal(overrides['file'], 'overrides.csv'); // its name: the folders stay private
    assert.equal(overrides['rows'], 5);
    assert.ok(!Number.isNaN(Date.parse(String(overrides['loadedAt']))));
    assert.match(String(overrides['version']), /^[0-9a-f]{12}$/);
    assert.equal(overrides['refusedAt'], null);
  });

  it('a changed file is answered after a reload; a bad one is refused whole with its line numbers', async () => {
    const data = await serviceData(service.config);
    await writeFile(file, 'network,city\n8.8.8.0/24,Hamburg\n');
    await data.overrides.reload({ ifChanged: true });
    assert.equal((await ip('8.8.8.8'))['city'], 'Hamburg');
    // the old rows are gone with the old file
    assert.equal((await ip('10.2.3.4'))['country'], null);

    const bad = [
      'network,city,latitude,country',
      '8.8.8.0/24,Bremen,,', // fine alone, but the file goes whole or not at all
      '8.8.300.0/24,Nowhere,,', // line 3
      '9.9.9.0/24,Somewhere,200,', // line 4
      '1.1.1.0/24,Elsewhere,,XX', // line 5
    ].join('\n');
    await writeFile(file, bad);
    await data.overrides.reload({ ifChanged: true });
    assert.equal((await ip('8.8.8.8'))['city'], 'Hamburg', 'the previous overrides answer on');
    const ready = dataOf((await get(service.baseUrl, '/readyz')).body);
    const warnings = (ready['warnings'] as string[]).join('\n');
    assert.match(warnings, /line 3: "8\.8\.300\.0\/24" is not a CIDR range/);
    assert.match(warnings, /line 4: latitude: "200" is not a number from -90 to 90/);
    assert.match(warnings, /line 5: country: "XX" is not an ISO 3166-1 alpha-2 country code/);
    assert.doesNotMatch(warnings, /line 2:/);
    const info = dataOf((await get(service.baseUrl, '/')).body);
    assert.equal((info['overrides'] as Record<string, unknown>)['rows'], 1);
    assert.notEqual((info['overrides'] as Record<string, unknown>)['refusedAt'], null);

    // a wrong column refuses the file too, naming the header's line
    await writeFile(file, 'network,colour\n8.8.8.0/24,red\n');
    await data.overrides.reload({ ifChanged: true });
    const again = dataOf((await get(service.baseUrl, '/readyz')).body);
    assert.match((again['warnings'] as string[]).join('\n'), /line 1: unknown column "colour"/);
    assert.equal((await ip('8.8.8.8'))['city'], 'Hamburg');

    // the file removed: no overrides, no warning
    await rm(file);
    await data.overrides.reload({ ifChanged: true });
    assert.equal((await ip('8.8.8.8'))['city'], 'Mountain View');
    const clean = dataOf((await get(service.baseUrl, '/readyz')).body);
    assert.doesNotMatch((clean['warnings'] as string[]).join('\n'), /overrides/);
  });
});
