// The update settings: defaults that name the publisher's real release
// URLs, FEEDS_DISABLED naming the data sets, and MaxMind's licence key kept
// out of every message, log and dump.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../../src/config.js';
import { sourceSettings } from '../../../../src/lookups/geoip/update/update-config.js';

const KEY = 'Zx9-secret-licence-key';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

describe('GeoIP/ASN update configuration', () => {
  it('defaults: ip-location-db release files, origin-asn, both data sets, 45 days', () => {
    const { dataUpdate } = loadConfig({});
    assert.deepEqual(dataUpdate.settings, {
      source: 'ip-location-db',
      baseUrl: 'https://github.com/sapics/ip-location-db/releases/download/latest',
      checksumBaseUrl: 'https://github.com/sapics/ip-location-db/releases/download/checksum',
      asnSet: 'origin-asn',
      dbipBaseUrl: 'https://download.db-ip.com/free',
      maxmindBaseUrl: 'https://download.maxmind.com/geoip/databases',
    });
    assert.deepEqual(dataUpdate.kinds, ['geoip', 'asn']);
    assert.equal(dataUpdate.maxAgeDays, 45);
  });

  it('FEEDS_DISABLED names geoip and asn beside the feeds', () => {
    const config = loadConfig({ FEEDS_DISABLED: 'geoip,aws,asn' });
    assert.deepEqual(config.dataUpdate.kinds, []);
    assert.equal(
      config.feeds.some((f) => f.id === 'aws'),
      false,
    );
  });

  it('refuses bad values, naming the variable', () => {
    const table = [
      { env: { DATA_SOURCE: 'geolite' }, want: /DATA_SOURCE/ },
      { env: { DATA_BASE_URL: 'ftp://mirror/x' }, want: /DATA_BASE_URL: must be an http/ },
      { env: { DATA_ASN_SET: 'asn' }, want: /DATA_ASN_SET/ },
      { env: { DATA_MAX_AGE_DAYS: '0' }, want: /DATA_MAX_AGE_DAYS/ },
      { env: { DATA_SOURCE: 'maxmind' }, want: /MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY/ },
    ];
    for (const { env, want } of table) assert.match(problems(env), want, JSON.stringify(env));
  });

  it('the licence key appears in no error, JSON or inspect output', () => {
    const bad = problems({
      DATA_SOURCE: 'maxmind',
      MAXMIND_ACCOUNT_ID: 'x1',
      MAXMIND_LICENSE_KEY: KEY,
    });
    assert.match(bad, /MAXMIND_ACCOUNT_ID: must be a number/);
    assert.equal(bad.includes(KEY), false);
    const config = loadConfig({
      DATA_SOURCE: 'maxmind',
      MAXMIND_ACCOUNT_ID: '42',
      MAXMIND_LICENSE_KEY: KEY,
    });
    assert.equal(JSON.stringify(config).includes(KEY), false);
    assert.equal(inspect(config, { depth: 10 }).includes(KEY), false);
    assert.equal(`${String(config.dataUpdate.maxmindLicenseKey)}`, '[redacted]');
    // only the download itself gets the value
    assert.deepEqual(sourceSettings(config.dataUpdate).maxmind, {
      accountId: '42',
      licenseKey: KEY,
    });
  });
});
