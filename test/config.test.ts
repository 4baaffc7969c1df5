// loadConfig(env): docs/configuration.md's variables, their defaults, and one error
// naming every bad variable.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_DNSBL_ZONES, loadConfig } from '../src/config.js';
import { PROJECT_ROOT } from '../src/kit/project-root.js';

describe('loadConfig defaults', () => {
  it('an empty environment is a working configuration', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.trustProxy, { kind: 'none' });
    assert.equal(config.rateLimitMax, 60);
    assert.equal(config.rateLimitWindowSeconds, 60);
    assert.equal(config.redisUrl, null);
    assert.ok(config.cacheMaxEntries > 0);
    assert.equal(config.dnsServers, null);
    assert.ok(config.dnsTimeoutMs > 0);
    assert.equal(config.rdapBaseUrl, null);
    assert.ok(config.rdapTimeoutMs > 0);
    assert.equal(config.whoisServer, null);
    assert.deepEqual(config.dnsblZones, [...DEFAULT_DNSBL_ZONES]);
    assert.equal(config.geoipDb, null);
    assert.equal(config.asnDb, null);
    assert.equal(config.dataDir, resolve(PROJECT_ROOT, 'data'));
    assert.equal(config.logLevel, 'info');
    assert.equal(config.workers, 1);
  });

  it('the result is frozen', () => {
    assert.ok(Object.isFrozen(loadConfig({})));
  });

  it('empty strings count as unset', () => {
    const config = loadConfig({ PORT: '', TRUST_PROXY: '', RATE_LIMIT_MAX: '', GEOIP_DB: '' });
    assert.equal(config.port, 8080);
    assert.equal(config.rateLimitMax, 60);
    assert.equal(config.geoipDb, null);
  });

  it('unknown variables are ignored', () => {
    assert.equal(loadConfig({ PATH: '/usr/bin', HOME: '/root' }).port, 8080);
  });
});

describe('loadConfig accepts good values', () => {
  const table: {
    env: Record<string, string>;
    check: (c: ReturnType<typeof loadConfig>) => unknown;
    want: unknown;
  }[] = [
    { env: { PORT: '0' }, check: (c) => c.port, want: 0 },
    { env: { PORT: ' 3000 ' }, check: (c) => c.port, want: 3000 },
    { env: { PORT: '65535' }, check: (c) => c.port, want: 65535 },
    { env: { HOST: '127.0.0.1' }, check: (c) => c.host, want: '127.0.0.1' },
    { env: { TRUST_PROXY: 'true' }, check: (c) => c.trustProxy, want: { kind: 'all' } },
    { env: { TRUST_PROXY: 'TRUE' }, check: (c) => c.trustProxy, want: { kind: 'all' } },
    { env: { TRUST_PROXY: 'false' }, check: (c) => c.trustProxy, want: { kind: 'none' } },
    { env: { TRUST_PROXY: '2' }, check: (c) => c.trustProxy, want: { kind: 'hops', hops: 2 } },
    { env: { TRUST_PROXY: '0' }, check: (c) => c.trustProxy, want: { kind: 'none' } },
    {
      env: { TRUST_PROXY: '10.0.0.0/8, 192.168.1.1 ,::1/128' },
      check: (c) =>
        c.trustProxy.kind === 'cidrs' ? c.trustProxy.cidrs.map((x) => x.text) : c.trustProxy,
      want: ['10.0.0.0/8', '192.168.1.1/32', '::1/128'],
    },
    { env: { RATE_LIMIT_MAX: '1' }, check: (c) => c.rateLimitMax, want: 1 },
    {
      env: { RATE_LIMIT_WINDOW_SECONDS: '3600' },
      check: (c) => c.rateLimitWindowSeconds,
      want: 3600,
    },
    { env: {}, check: (c) => c.rateLimitLeaseMs, want: 1000 },
    { env: { RATE_LIMIT_LEASE_MS: '0' }, check: (c) => c.rateLimitLeaseMs, want: 0 },
    {
      env: { REDIS_URL: 'redis://localhost:6379' },
      check: (c) => c.redisUrl,
      want: 'redis://localhost:6379',
    },
    {
      env: { REDIS_URL: 'rediss://h:6380/0' },
      check: (c) => c.redisUrl,
      want: 'rediss://h:6380/0',
    },
    { env: { CACHE_MAX_ENTRIES: '0' }, check: (c) => c.cacheMaxEntries, want: 0 },
    {
      env: { DNS_SERVERS: '1.1.1.1, 8.8.8.8:5353,[2606:4700::1111]:53,2001:4860::8888' },
      check: (c) => c.dnsServers,
      want: [
        { host: '1.1.1.1', port: 53 },
        { host: '8.8.8.8', port: 5353 },
        { host: '2606:4700::1111', port: 53 },
        { host: '2001:4860::8888', port: 53 },
      ],
    },
    { env: { DNS_TIMEOUT_MS: '250' }, check: (c) => c.dnsTimeoutMs, want: 250 },
    {
      env: { RDAP_BASE_URL: 'http://127.0.0.1:9000/rdap' },
      check: (c) => c.rdapBaseUrl,
      want: 'http://127.0.0.1:9000/rdap/',
    },
    {
      env: { RDAP_BASE_URL: 'https://rdap.example/' },
      check: (c) => c.rdapBaseUrl,
      want: 'https://rdap.example/',
    },
    {
      env: { WHOIS_SERVER: 'whois.example' },
      check: (c) => c.whoisServer,
      want: { host: 'whois.example', port: 43 },
    },
    {
      env: { WHOIS_SERVER: '127.0.0.1:4343' },
      check: (c) => c.whoisServer,
      want: { host: '127.0.0.1', port: 4343 },
    },
    {
      env: { WHOIS_SERVER: '[::1]:4343' },
      check: (c) => c.whoisServer,
      want: { host: '::1', port: 4343 },
    },
    {
      env: { DNSBL_ZONES: 'Zen.Spamhaus.org., bl.test ,,' },
      check: (c) => c.dnsblZones,
      want: ['zen.spamhaus.org', 'bl.test'],
    },
    {
      env: { GEOIP_DB: 'relative/City.mmdb' },
      check: (c) => c.geoipDb,
      want: resolve('relative/City.mmdb'),
    },
    { env: { ASN_DB: '/abs/ASN.mmdb' }, check: (c) => c.asnDb, want: '/abs/ASN.mmdb' },
    { env: { DATA_DIR: '/tmp/ipintel-data' }, check: (c) => c.dataDir, want: '/tmp/ipintel-data' },
    { env: { LOG_LEVEL: 'silent' }, check: (c) => c.logLevel, want: 'silent' },
    { env: { WORKERS: '4' }, check: (c) => c.workers, want: 4 },
    {
      env: {},
      check: (c) => [
        c.headersTimeoutMs,
        c.requestTimeoutMs,
        c.keepAliveTimeoutMs,
        c.maxConnections,
      ],
      want: [10_000, 30_000, 65_000, 10_000],
    },
    { env: { HEADERS_TIMEOUT_MS: '2000' }, check: (c) => c.headersTimeoutMs, want: 2000 },
    { env: { REQUEST_TIMEOUT_MS: '60000' }, check: (c) => c.requestTimeoutMs, want: 60000 },
    { env: { KEEP_ALIVE_TIMEOUT_MS: '75000' }, check: (c) => c.keepAliveTimeoutMs, want: 75000 },
    { env: { MAX_CONNECTIONS: '0' }, check: (c) => c.maxConnections, want: 0 },
    { env: {}, check: (c) => c.cacheMaxBytes, want: 64 * 1024 * 1024 },
    { env: { CACHE_MAX_BYTES: '1000000' }, check: (c) => c.cacheMaxBytes, want: 1_000_000 },
    {
      env: {},
      check: (c) => [
        c.apiKeysFile,
        c.apiKeysRequired,
        c.metricsToken,
        c.metricsPort,
        c.metricsHost,
      ],
      want: [null, false, null, null, '127.0.0.1'],
    },
    {
      env: { API_KEYS_FILE: '/etc/ipintel/keys.csv', API_KEYS_REQUIRED: 'true' },
      check: (c) => [c.apiKeysFile, c.apiKeysRequired],
      want: ['/etc/ipintel/keys.csv', true],
    },
    {
      env: { METRICS_TOKEN: 'a-long-metrics-token', METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' },
      check: (c) => [c.metricsToken, c.metricsPort, c.metricsHost],
      want: ['a-long-metrics-token', 9464, '0.0.0.0'],
    },
  ];
  for (const { env, check, want } of table) {
    it(`${Object.entries(env)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ')}`, () => {
      assert.deepEqual(check(loadConfig(env)), want);
    });
  }

  it('WORKERS=auto is at least one', () => {
    assert.ok(loadConfig({ WORKERS: 'auto' }).workers >= 1);
  });
});

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, 'a ConfigError');
    return error.problems;
  }
  return assert.fail(`${JSON.stringify(env)} should be refused`);
}

describe('loadConfig refuses bad values, naming the variable', () => {
  const table: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['HOST', '   '],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '1000'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/8,bogus'],
    ['TRUST_PROXY', '-1'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_MAX', 'sixty'],
    ['RATE_LIMIT_MAX', '-5'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_WINDOW_SECONDS', '1.5'],
    ['RATE_LIMIT_LEASE_MS', '60001'],
    ['RATE_LIMIT_LEASE_MS', '-1'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['REDIS_URL', 'not a url'],
    ['CACHE_MAX_ENTRIES', '-1'],
    ['CACHE_MAX_ENTRIES', 'many'],
    ['DNS_SERVERS', 'dns.google'],
    ['DNS_SERVERS', '1.1.1.1:0'],
    ['DNS_SERVERS', '1.1.1.1:99999'],
    ['DNS_SERVERS', '1.1.1.1,,8.8.8.8'],
    ['DNS_SERVERS', '[::1]:53:53'],
    ['DNS_TIMEOUT_MS', '0'],
    ['DNS_TIMEOUT_MS', 'fast'],
    ['RDAP_BASE_URL', 'ftp://rdap.example/'],
    ['RDAP_BASE_URL', 'rdap.example'],
    ['RDAP_TIMEOUT_MS', '0'],
    ['WHOIS_SERVER', 'whois.example:0'],
    ['WHOIS_SERVER', 'bad host!'],
    ['WHOIS_TIMEOUT_MS', 'x'],
    ['DNSBL_ZONES', 'bad zone'],
    ['DNSBL_ZONES', 'a..b'],
    ['DNSBL_ZONES', '-leading.hyphen'],
    ['LOG_LEVEL', 'verbose'],
    ['WORKERS', '0'],
    ['WORKERS', 'all'],
    ['WORKERS', '1000'],
    ['HEADERS_TIMEOUT_MS', '10'],
    ['HEADERS_TIMEOUT_MS', '40000'], // above REQUEST_TIMEOUT_MS's default
    ['REQUEST_TIMEOUT_MS', 'soon'],
    ['KEEP_ALIVE_TIMEOUT_MS', '0'],
    ['MAX_CONNECTIONS', '-1'],
    ['CACHE_MAX_BYTES', '1e6'],
    ['API_KEYS_REQUIRED', 'true'], // without API_KEYS_FILE: nobody could get in
    ['API_KEYS_REQUIRED', 'yes'],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_TOKEN', 'has a space in the token'],
    ['METRICS_PORT', '0'],
    ['METRICS_PORT', '8080'], // the default PORT
  ];
  for (const [name, value] of table) {
    it(`${name}=${JSON.stringify(value)}`, () => {
      const problems = problemsOf({ [name]: value });
      assert.equal(problems.length, 1, problems.join('; '));
      assert.ok(problems[0]?.startsWith(`${name}:`), problems[0]);
    });
  }

  it('every bad variable is named at once, and the message lists them', () => {
    const env = { PORT: 'x', RATE_LIMIT_MAX: '0', LOG_LEVEL: 'loud', TRUST_PROXY: 'maybe' };
    const problems = problemsOf(env);
    assert.deepEqual(problems.map((p) => p.split(':')[0]).sort(), Object.keys(env).sort());
    try {
      loadConfig(env);
    } catch (error) {
      assert.ok(error instanceof Error);
      for (const name of Object.keys(env)) assert.match(error.message, new RegExp(name));
    }
  });
});
