// deploy/prometheus/: the alert rules are valid (`promtool check rules`) and
// each alert fires on the series that should raise it, after its `for`, and
// not before (`promtool test rules` on ipintel-rules.test.yml). promtool is
// Debian's `prometheus` package, installed by scripts/ensure-promtool.sh.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';

const DIR = join(PROJECT_ROOT, 'deploy', 'prometheus');

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('Prometheus alert rules', () => {
  before(() => {
    const ensure = spawnSync('sh', [join(PROJECT_ROOT, 'scripts', 'ensure-promtool.sh')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    assert.equal(ensure.status, 0, 'scripts/ensure-promtool.sh could not provide promtool');
  });

  it('pass promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', 'ipintel-rules.yml');
    assert.equal(status, 0, output);
    assert.match(output, /SUCCESS: 7 rules found/);
  });

  it('fire as their unit tests say (promtool test rules)', () => {
    const { status, output } = promtool('test', 'rules', 'ipintel-rules.test.yml');
    assert.equal(status, 0, output);
  });

  it('cover data and feed age, upstream errors, 5xx, instance down and Redis', () => {
    const rules = readFileSync(join(DIR, 'ipintel-rules.yml'), 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    for (const name of [
      'IpintelDataStale',
      'IpintelFeedStale',
      'IpintelUpstreamErrorRatio',
      'IpintelHigh5xxRatio',
      'IpintelInstanceDown',
      'IpintelRedisUnreachable',
    ]) {
      assert.ok(alerts.includes(name), `${name} is missing`);
    }
  });
});
