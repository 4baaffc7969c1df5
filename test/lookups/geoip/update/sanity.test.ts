// The sanity checks before new data replaces the current: not far smaller,
// and the addresses the current data answers are still answered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileAsnRanges } from '../../../../src/lookups/geoip/compile/compile.js';
import { countsOf } from '../../../../src/lookups/geoip/compiled-set.js';
import { NONE } from '../../../../src/data/range-table.js';
import { sampleProbes, sanityProblem } from '../../../../src/lookups/geoip/update/sanity.js';
import { parseIp, type Ip } from '../../../../src/net/ip.js';

const ip = (text: string): Ip => parseIp(text)!;

/** /24s <first>.<i>.0.0 for i in `blocks`, plus one IPv6 /32 */
function table(blocks: number[], first = 20) {
  const rows = blocks.map((i) => ({
    start: ip(`${first}.${i}.0.0`),
    end: ip(`${first}.${i}.0.255`),
    asn: 64500 + i,
    org: null,
  }));
  rows.push({
    start: ip('2001:db8::'),
    end: ip('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'),
    asn: 64499,
    org: null,
  });
  const compiled = compileAsnRanges(rows);
  return { table: compiled.table, counts: countsOf(compiled.table, compiled) };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('sanity checks of new data', () => {
  const current = table(range(100));
  const baseline = { ranges: 201 + 3, probes: sampleProbes(current.table) };

  it('samples answered ranges of both families, at most 32 each', () => {
    const v4 = baseline.probes.filter((p) => p.v === 4);
    const v6 = baseline.probes.filter((p) => p.v === 6);
    assert.equal(v4.length, 32);
    assert.equal(v6.length, 1);
    for (const p of baseline.probes) {
      assert.notEqual(
        p.v === 4 ? current.table.findV4(p.value) : current.table.findV6(p.groups),
        NONE,
      );
    }
  });

  it('accepts the same or similar data; refuses empty, far smaller, or data that lost the answers', () => {
    const rows = [
      { fresh: current, want: null },
      { fresh: table([...range(100), 150]), want: null },
      { fresh: table(range(30)), want: /far fewer than the 204/ },
      { fresh: table(range(200), 30), want: /answers only \d+ of 33 addresses/ },
    ];
    for (const { fresh, want } of rows) {
      const problem = sanityProblem(fresh, baseline);
      if (want === null) assert.equal(problem, null);
      else assert.match(problem ?? '', want);
    }
    const empty = compileAsnRanges([]);
    const counts = countsOf(empty.table, empty);
    assert.equal(
      sanityProblem({ table: empty.table, counts }, null),
      'the new data holds no records',
    );
  });
});
