// An uncalibrated source (IPinfo Lite with the operator's token) joins the
// reconciled answer without changing it: it never votes on the country,
// never moves the point or the radius; it fills in where no calibrated
// source answers (then without a radius) and is named where its country is
// the answer's. The pure step first, then through the reconciling compiler
// with a DB-IP-style City file and an IPinfo Lite-style file (flat string
// records) written here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { mmdbLayer } from '../../../../src/lookups/geoip/compile/layers.js';
import { compileReconciled } from '../../../../src/lookups/geoip/compile/reconciled.js';
import { ipinfoLiteLayer } from '../../../../src/lookups/geoip/location-sources.js';
import { UNKNOWN_LOCATION, dbipMapper } from '../../../../src/lookups/geoip/record-map.js';
import type {
  Reconciled,
  SourceAnswer,
} from '../../../../src/lookups/geoip/reconcile/reconcile.js';
import type { LocationChoice } from '../../../../src/lookups/geoip/reconcile/rule-file.js';
import { withUncalibrated } from '../../../../src/lookups/geoip/reconcile/uncalibrated.js';
import { MmdbDouble, buildMmdb, ipinfoLiteRecord } from '../../../helpers/mmdb-writer.js';
import { reconciledAnswer } from '../../../helpers/reconciled-answer.js';

const countryOnly = (source: string, country: string): SourceAnswer => ({
  source,
  kind: 'country',
  location: { ...UNKNOWN_LOCATION, country },
});

const london: Reconciled = {
  location: {
    country: 'GB',
    city: 'London',
    region: 'England',
    timezone: 'Europe/London',
    latitude: 51.5072,
    longitude: -0.1276,
  },
  decidedBy: ['dbip', 'registry'],
  bucket: 'EU|single|unanimous|city',
};

const amsterdam = {
  ...UNKNOWN_LOCATION,
  country: 'NL',
  city: 'Amsterdam',
  latitude: 52.37,
  longitude: 4.89,
};

describe('withUncalibrated: the uncalibrated sources beside a calibrated answer', () => {
  const cases: {
    name: string;
    calibrated: Reconciled | null;
    extra: SourceAnswer[];
    want: Reconciled | null;
  }[] = [
    {
      name: 'agreeing: the answer unchanged, the source named last',
      calibrated: london,
      extra: [countryOnly('ipinfo-lite', 'GB')],
      want: { ...london, decidedBy: ['dbip', 'registry', 'ipinfo-lite'] },
    },
    {
      name: 'disagreeing: the answer unchanged, the source not named (it never votes)',
      calibrated: london,
      extra: [countryOnly('ipinfo-lite', 'IE')],
      want: london,
    },
    {
      name: 'no calibrated answer: it fills in, country only, no bucket (no radius)',
      calibrated: null,
      extra: [countryOnly('ipinfo-lite', 'NL')],
      want: {
        location: { ...UNKNOWN_LOCATION, country: 'NL' },
        decidedBy: ['ipinfo-lite'],
        bucket: null,
      },
    },
    {
      name: 'no calibrated answer, a city source with a point first, an agreeing country source named',
      calibrated: null,
      extra: [
        countryOnly('ipinfo-lite', 'NL'),
        { source: 'ip2location-db11', kind: 'city', location: amsterdam },
      ],
      want: {
        location: amsterdam,
        decidedBy: ['ip2location-db11', 'ipinfo-lite'],
        bucket: null,
      },
    },
    { name: 'nothing from anyone: nothing', calibrated: null, extra: [], want: null },
    {
      name: 'an uncalibrated answer without a country fills nothing in',
      calibrated: null,
      extra: [{ source: 'ipinfo-lite', kind: 'country', location: { ...UNKNOWN_LOCATION } }],
      want: null,
    },
  ];
  for (const { name, calibrated, extra, want } of cases) {
    it(name, () => assert.deepEqual(withUncalibrated(calibrated, extra), want));
  }
});

// ---- through the compiler ----

const flat = dbipMapper(() => 'Etc/Test');

const dbip = new Reader<object>(
  buildMmdb({
    databaseType: 'city',
    networks: [
      {
        network: '81.2.69.0/24',
        data: {
          city: 'London',
          country_code: 'GB',
          latitude: new MmdbDouble(51.5072),
          longitude: new MmdbDouble(-0.1276),
          state1: 'England',
        },
      },
    ],
  }),
);

const ipinfoRecord = (code: string) => ipinfoLiteRecord('x', code);

const ipinfo = new Reader<object>(
  buildMmdb({
    databaseType: 'ipinfo ipinfo_lite.mmdb',
    networks: [
      { network: '81.2.69.0/25', data: ipinfoRecord('GB') },
      // disagrees with DB-IP: must change nothing
      { network: '81.2.69.128/25', data: ipinfoRecord('IE') },
      // where no calibrated source answers
      { network: '5.6.7.0/24', data: ipinfoRecord('NL') },
      // where a calibrated country source answers and the rule answers nothing
      { network: '5.6.8.0/24', data: ipinfoRecord('NL') },
      { network: '2001:db8::/32', data: ipinfoRecord('SE') },
    ],
  }),
);

const choice: LocationChoice = {
  rule: { country: 'first', nearKm: 25, near: 'first', far: 'first', disagreeing: 'keep' },
  radii: { 'EU|single|unanimous|city': 5, all: 100 },
};

/** a registry-style country source, answering where DB-IP does not */
const registry = new Reader<object>(
  buildMmdb({
    databaseType: 'country',
    networks: [{ network: '5.6.8.0/24', data: { country_code: 'DE' } }],
  }),
);

const dbipLayer = mmdbLayer('dbip', 'city', dbip, dbip, flat, true);
const registryLayer = mmdbLayer('registry', 'country', registry, registry, flat);
const withIpinfo = compileReconciled([dbipLayer, registryLayer, ipinfoLiteLayer(ipinfo)], choice);
const alone = compileReconciled([dbipLayer, registryLayer], choice);

const answer = reconciledAnswer;

describe('an uncalibrated layer through the reconciling compiler', () => {
  it('is marked uncalibrated, a country source', () => {
    const layer = ipinfoLiteLayer(ipinfo);
    assert.equal(layer.calibrated, false);
    assert.equal(layer.kind, 'country');
    assert.deepEqual(new Set(layer.answers.map((a) => a.city)), new Set([null]));
  });

  it('agreeing: the calibrated answer and radius unchanged, IPinfo Lite named', () => {
    const before = answer(alone, '81.2.69.1');
    assert.deepEqual(answer(withIpinfo, '81.2.69.1'), {
      ...before,
      decidedBy: `${before!.decidedBy}, ipinfo-lite`,
    });
    assert.equal(before?.radiusKm, 5);
  });

  it('disagreeing: the calibrated answer exactly as without it', () => {
    assert.deepEqual(answer(withIpinfo, '81.2.69.200'), answer(alone, '81.2.69.200'));
    assert.equal(answer(withIpinfo, '81.2.69.200')?.country, 'GB');
  });

  it('no calibrated answer: IPinfo Lite fills in the country, no radius, named alone', () => {
    assert.equal(answer(alone, '5.6.7.8'), null);
    assert.deepEqual(answer(withIpinfo, '5.6.7.8'), {
      country: 'NL',
      city: null,
      latitude: null,
      radiusKm: null,
      decidedBy: 'ipinfo-lite',
    });
    assert.equal(answer(withIpinfo, '2001:db8::1')?.country, 'SE');
  });

  it('a calibrated source answers and the rule answers nothing: nothing is filled in', () => {
    // the 'first' rule takes no country from a country source alone
    assert.equal(answer(alone, '5.6.8.1'), null);
    assert.equal(answer(withIpinfo, '5.6.8.1'), null);
  });

  it('nobody: nothing', () => {
    assert.equal(answer(withIpinfo, '9.9.9.9'), null);
  });
});
