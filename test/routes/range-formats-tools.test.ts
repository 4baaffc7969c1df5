// GET /ranges' firewall formats loaded by the real tools (Debian's packages,
// installed by scripts/ensure-firewall-tools.sh): `nft -c -f` for the
// nftables sets, `nginx -t` with the geo block included in an http block,
// `iptables-restore --test` and `ip6tables-restore --test` for the chains,
// and `ipset restore` (sets created under names of this run, tested with
// `ipset test` inside and outside the list, then destroyed). Each tool is
// also shown a damaged list, which it must refuse: the check is real. A tool
// that cannot run here (no binary, no CAP_NET_ADMIN, no netlink) is skipped
// with the reason it gave. The README's firewall recipe is checked by nft too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { get, startService, type TestService } from '../helpers/service.js';
import { nginxHttpScratch, nginxMain } from '../helpers/nginx.js';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';

let dir: string;
let service: TestService;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-range-tools-'));
  service = await startService({ env: { DATA_DIR: dir, RATE_LIMIT_MAX: '1000' } });
});

after(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  output: string;
}

/** A command's exit status and its output (stdout and stderr); -1 when it cannot start. */
function run(command: string, args: string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code =
          error === null
            ? 0
            : typeof (error as { code?: unknown }).code === 'number'
              ? ((error as { code: number }).code ?? 1)
              : -1;
        resolve({ code, output: `${stdout}${stderr}${code === -1 ? error!.message : ''}` });
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** The tool's binary, or null when it is not installed. */
async function tool(name: string): Promise<string | null> {
  for (const path of [`/usr/sbin/${name}`, `/sbin/${name}`, `/usr/bin/${name}`]) {
    if ((await run('test', ['-x', path])).code === 0) return path;
  }
  return null;
}

/** The reason a tool cannot run here, when its answer to a valid input says so; else null. */
function cannotRun(r: Run): string | null {
  return /not permitted|permission denied|Could not fetch rule set|netlink|can't initialize|Kernel error|not supported/i.test(
    r.output,
  )
    ? r.output.trim().split('\n')[0]!
    : null;
}

const list = async (query: string) => {
  const res = await get(service.baseUrl, `/ranges?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.text;
};

/** Lists of both families (LU, the bogons) and a hosting network's, in one format. */
const QUERIES = ['country=LU', 'kind=bogon', 'asn=AS14061'];

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('the formats loaded by the real tools', () => {
  it('nft -c -f takes the nftables sets, and refuses a damaged one', async (t: TestContext) => {
    const nft = await tool('nft');
    if (nft === null) return t.skip('nft is not installed (scripts/ensure-firewall-tools.sh)');
    for (const query of QUERIES) {
      const text = await list(`${query}&format=nftables&name=t_${process.pid}`);
      const r = await run(nft, ['-c', '-f', await file('list.nft', text)]);
      const reason = cannotRun(r);
      if (r.code !== 0 && reason !== null) return t.skip(`nft -c cannot run here: ${reason}`);
      assert.equal(r.code, 0, `${query}: ${r.output}`);
    }
    // the README's recipe: the list and its drop chain, as one ruleset
    const readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const chain = /echo '(table inet ru \{[^']+)'/.exec(readme)?.[1];
    assert.ok(chain !== undefined, "the README's recipe names its drop chain");
    const recipe = `${await list('country=RU&format=nftables&name=ru')}${chain}\n`;
    const checked = await run(nft, ['-c', '-f', await file('recipe.nft', recipe)]);
    assert.equal(checked.code, 0, `the README's recipe: ${checked.output}`);
    const damaged = (await list('country=LU&format=nftables')).replace(
      /\d+\.\d+\.\d+\.\d+\//,
      '300.1.1.0/',
    );
    const bad = await run(nft, ['-c', '-f', await file('bad.nft', damaged)]);
    assert.notEqual(bad.code, 0, 'nft refuses 300.1.1.0');
  });

  it('nginx -t takes the geo block included in an http block', async (t: TestContext) => {
    const nginx = await tool('nginx');
    if (nginx === null) return t.skip('nginx is not installed (scripts/ensure-firewall-tools.sh)');
    const check = async (geo: string) => {
      const include = await file('geo.conf', geo);
      const conf = await file(
        'nginx.conf',
        `${nginxMain(dir)}
events { worker_connections 16; }
http {
${nginxHttpScratch(dir)}
  include ${include};
  server { listen 127.0.0.1:9; location / { return 200 $blocked; } }
}
`,
      );
      return run(nginx, ['-t', '-q', '-p', dir, '-c', conf, '-e', join(dir, 'nginx-error.log')]);
    };
    for (const query of QUERIES) {
      const r = await check(await list(`${query}&format=nginx&name=blocked`));
      assert.equal(r.code, 0, `${query}: ${r.output}`);
    }
    const damaged = (await list('country=LU&format=nginx&name=blocked')).replace(/\}\n$/, '');
    assert.notEqual((await check(damaged)).code, 0, 'nginx refuses an unclosed geo block');
  });

  it('iptables-restore --test and ip6tables-restore --test take the chains', async (t: TestContext) => {
    for (const [family, name] of [
      ['4', 'iptables-restore'],
      ['6', 'ip6tables-restore'],
    ] as const) {
      const binary = await tool(name);
      if (binary === null)
        return t.skip(`${name} is not installed (scripts/ensure-firewall-tools.sh)`);
      for (const query of QUERIES) {
        const text = await list(`${query}&format=iptables&family=${family}&name=t${process.pid}`);
        const r = await run(binary, ['--test', await file('rules', text)]);
        const reason = cannotRun(r);
        if (r.code !== 0 && reason !== null)
          return t.skip(`${name} --test cannot run here: ${reason}`);
        assert.equal(r.code, 0, `${name} ${query}: ${r.output}`);
      }
      const damaged = (await list(`country=LU&format=iptables&family=${family}`)).replace(
        'COMMIT\n',
        '',
      );
      assert.notEqual(
        (await run(binary, ['--test', await file('bad-rules', damaged)])).code,
        0,
        `${name} refuses rules without COMMIT`,
      );
    }
  });

  it('ipset restore takes the sets, which then hold the list and nothing else', async (t: TestContext) => {
    const ipset = await tool('ipset');
    if (ipset === null) return t.skip('ipset is not installed (scripts/ensure-firewall-tools.sh)');
    const name = `ipintel_t${process.pid}`;
    const text = await list(`country=LU&format=ipset&name=${name}`);
    const created: string[] = [];
    try {
      const r = await run(ipset, ['restore'], text);
      const reason = cannotRun(r);
      if (r.code !== 0 && reason !== null) return t.skip(`ipset cannot run here: ${reason}`);
      assert.equal(r.code, 0, r.output);
      created.push(`${name}_v4`, `${name}_v6`);
      const plain = (await list('country=LU&family=4')).split('\n').filter((l) => l !== '');
      const inside = plain[0]!.split('/')[0]!;
      assert.equal((await run(ipset, ['test', `${name}_v4`, inside])).code, 0, inside);
      // 8.8.8.8 is not in Luxembourg
      assert.notEqual((await run(ipset, ['test', `${name}_v4`, '8.8.8.8'])).code, 0);
      const saved = await run(ipset, ['list', `${name}_v4`]);
      const members = saved.output
        .split('Members:\n')[1]!
        .split('\n')
        .filter((l) => l !== '');
      assert.equal(members.length, plain.length);
    } finally {
      for (const set of created) await run(ipset, ['destroy', set]);
    }
  });
});
