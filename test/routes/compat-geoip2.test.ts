// MaxMind's own clients of the GeoIP2 web service — @maxmind/geoip2-node's
// WebServiceClient and Python's geoip2.webservice.Client (Debian's
// python3-geoip2) — pointed at the service by their `host` option alone,
// through a real TLS terminator (nginx with a certificate made for this run),
// each trusting it the documented way (NODE_EXTRA_CA_CERTS for the Node
// child, REQUESTS_CA_BUNDLE for requests under the Python client). Their
// parsed model objects (city.names.en, traits.isAnonymousVpn /
// traits.is_anonymous_vpn, …) for 1,000 seeded addresses equal the service's
// own GET /ip/:ip and GET /ip/:ip/vpn records; bogons, addresses the data does
// not know, bad input and wrong licence keys end in each client's own
// documented errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import {
  ownAnswers,
  clientAddresses,
  keyedCompatService,
  startTlsTerminator,
  unknownToData,
  type OwnAnswer,
  type TlsTerminator,
} from '../helpers/compat.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';
import type { SpawnedService } from '../helpers/spawned-service.js';

const ENSURE = join(PROJECT_ROOT, 'scripts', 'ensure-mmdb-readers.sh');
const PYTHON = '/usr/bin/python3';
const KEY = 'geoip2-licence-key-0123456789';
const TINY = 'geoip2-tiny-key-0123456789';
const random = seededRandom();
const addresses = clientAddresses(random);

let started: Awaited<ReturnType<typeof keyedCompatService>> | undefined;
let service: SpawnedService;
let tls: TlsTerminator;
let own: Map<string, OwnAnswer>;

before(async () => {
  // nginx and python3-geoip2 (Debian's), installed when missing
  const install = spawnSync('sh', [ENSURE], { stdio: ['ignore', 'ignore', 'inherit'] });
  assert.equal(install.status, 0, 'scripts/ensure-mmdb-readers.sh failed');
  started = await keyedCompatService('ipintel-geoip2-', KEY, TINY, { API_KEYS_REQUIRED: 'true' });
  service = started.service;
  own = await ownAnswers(`http://127.0.0.1:${service.port}`, addresses, {
    authorization: `Bearer ${KEY}`,
  });
  tls = await startTlsTerminator(started.dir, service.port);
});

after(async () => {
  await tls?.stop();
  started?.close();
});

/** What a client's model holds for an address, read alike from both clients. */
interface Parsed {
  ip?: string;
  /** the client's error: its code (Node) or exception class (Python) */
  error?: string;
  country?: string | null;
  countryName?: string | null;
  city?: string | null;
  region?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  timezone?: string | null;
  /** location.accuracy_radius: whole km, at least 1 */
  radius?: number | null;
  asn?: number | null;
  asOrg?: string | null;
  isp?: string | null;
  vpn?: boolean;
  hosting?: boolean;
  proxy?: boolean;
  tor?: boolean;
}

/** The model fields the service's own records say, or the error each client raises. */
function expected(answer: OwnAnswer, bogonError: string, unknownError: string): Parsed {
  const { geo, vpn } = answer;
  if (geo.bogon) return { error: bogonError };
  if (unknownToData(geo)) return { error: unknownError };
  return {
    ip: geo.ip,
    country: geo.country,
    city: geo.city,
    region: geo.region,
    latitude: geo.latitude,
    longitude: geo.longitude,
    timezone: geo.timezone,
    radius: geo.accuracyRadiusKm === null ? null : Math.max(1, Math.round(geo.accuracyRadiusKm)),
    asn: geo.asn === null ? null : Number(geo.asn.slice(2)),
    asOrg: geo.org,
    isp: geo.isp,
    vpn: vpn.isVpn,
    hosting: vpn.isHosting,
    proxy: vpn.isProxy,
    tor: vpn.isTor,
  };
}

/** `countryName` is checked on its own (ICU's English name): the rest compared whole */
function withoutName({ countryName, ...rest }: Parsed): Parsed {
  if (rest.country !== undefined && rest.country !== null) {
    assert.ok(typeof countryName === 'string' && countryName.length > 2, rest.country);
  }
  return rest;
}

const NODE_CLIENT = `
import { WebServiceClient } from '@maxmind/geoip2-node';
const [host, key, service] = process.argv.slice(1);
const addresses = JSON.parse(await new Response(process.stdin).text());
const client = new WebServiceClient('42', key, { host, timeout: 10000 });
const out = [];
for (const address of addresses) {
  try {
    const r = await client[service](address);
    out.push({
      ip: r.traits.ipAddress,
      country: r.country?.isoCode ?? null,
      countryName: r.country?.names.en ?? null,
      city: r.city?.names.en ?? null,
      region: r.subdivisions?.[0]?.names.en ?? null,
      latitude: r.location?.latitude ?? null,
      longitude: r.location?.longitude ?? null,
      timezone: r.location?.timeZone ?? null,
      radius: r.location?.accuracyRadius ?? null,
      asn: r.traits.autonomousSystemNumber ?? null,
      asOrg: r.traits.autonomousSystemOrganization ?? null,
      isp: r.traits.isp ?? null,
      vpn: r.traits.isAnonymousVpn,
      hosting: r.traits.isHostingProvider,
      proxy: r.traits.isPublicProxy,
      tor: r.traits.isTorExitNode,
    });
  } catch (error) {
    out.push({ error: String(error.code) });
  }
}
process.stdout.write(JSON.stringify(out));
`;

const PYTHON_CLIENT = `
import json, sys
import geoip2.webservice, geoip2.errors
host, key, service = sys.argv[1:4]
client = geoip2.webservice.Client(42, key, host=host, timeout=10)
out = []
for address in json.load(sys.stdin):
    try:
        r = getattr(client, service)(address)
    except (geoip2.errors.GeoIP2Error, ValueError) as error:
        out.append({'error': type(error).__name__})
        continue
    t = r.traits
    # a Country model has no city, location or subdivisions
    city = getattr(r, 'city', None)
    location = getattr(r, 'location', None)
    subdivisions = getattr(r, 'subdivisions', None)
    out.append({
        'ip': t.ip_address,
        'country': r.country.iso_code,
        'countryName': r.country.name,
        'city': city.name if city else None,
        'region': subdivisions.most_specific.name if subdivisions else None,
        'latitude': location.latitude if location else None,
        'longitude': location.longitude if location else None,
        'timezone': location.time_zone if location else None,
        'radius': location.accuracy_radius if location else None,
        'asn': t.autonomous_system_number,
        'asOrg': t.autonomous_system_organization,
        'isp': t.isp,
        'vpn': t.is_anonymous_vpn,
        'hosting': t.is_hosting_provider,
        'proxy': t.is_public_proxy,
        'tor': t.is_tor_exit_node,
    })
print(json.dumps(out))
`;

/** Runs a client over the addresses in a child that trusts the throw-away certificate. */
function runClient(
  language: 'node' | 'python',
  service: string,
  list: readonly string[],
  key = KEY,
): Parsed[] {
  const host = `127.0.0.1:${tls.port}`;
  const run =
    language === 'node'
      ? spawnSync(
          process.execPath,
          ['--input-type=module', '-e', NODE_CLIENT, host, key, service],
          {
            cwd: PROJECT_ROOT,
            input: JSON.stringify(list),
            encoding: 'utf8',
            env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.certificate },
            timeout: 120_000,
          },
        )
      : spawnSync(PYTHON, ['-c', PYTHON_CLIENT, host, key, service], {
          input: JSON.stringify(list),
          encoding: 'utf8',
          env: { ...process.env, REQUESTS_CA_BUNDLE: tls.certificate },
          timeout: 120_000,
        });
  assert.equal(run.status, 0, `${language} client: ${run.stderr}`);
  const parsed = JSON.parse(run.stdout) as Parsed[];
  assert.equal(parsed.length, list.length);
  return parsed;
}

const CLIENTS = [
  {
    language: 'node' as const,
    bogon: 'IP_ADDRESS_RESERVED',
    unknown: 'IP_ADDRESS_NOT_FOUND',
    invalid: 'IP_ADDRESS_INVALID',
    wrongKey: 'AUTHORIZATION_INVALID',
    noKey: 'LICENSE_KEY_REQUIRED',
  },
  {
    language: 'python' as const,
    bogon: 'AddressNotFoundError',
    unknown: 'AddressNotFoundError',
    invalid: 'ValueError',
    wrongKey: 'AuthenticationError',
    noKey: 'AuthenticationError',
  },
];

for (const c of CLIENTS) {
  describe(`${c.language === 'node' ? '@maxmind/geoip2-node WebServiceClient' : 'Python geoip2.webservice.Client'} through TLS`, () => {
    it('insights: 1,000 seeded addresses (IPv4, IPv6, bogons) equal the service’s own records', () => {
      const results = runClient(c.language, 'insights', addresses);
      // the override row answers for its addresses (the whole record's way)
      assert.equal(results[0]?.city, 'Leipzig');
      assert.equal(results[0]?.vpn, true);
      let answered = 0;
      withSeed(random, () => {
        addresses.forEach((address, i) => {
          const want = expected(own.get(address)!, c.bogon, c.unknown);
          assert.deepEqual(withoutName(results[i]!), want, address);
          if (want.error === undefined) answered++;
        });
      });
      assert.ok(answered >= 500, `${answered} answered`);
    });

    it('city and country of a sample: the same place; country leaves out the city, traits and flags', () => {
      const sample = addresses.filter((address, i) => i % 50 === 0 && !own.get(address)!.geo.bogon);
      const cities = runClient(c.language, 'city', sample);
      const countries = runClient(c.language, 'country', sample);
      sample.forEach((address, i) => {
        const want = expected(own.get(address)!, c.bogon, c.unknown);
        if (want.error !== undefined) return;
        // city answers no detection flags: the clients read them false
        const cityWant = { ...want, vpn: false, hosting: false, proxy: false, tor: false };
        assert.deepEqual(withoutName(cities[i]!), cityWant, address);
        assert.equal(countries[i]!.country, want.country, address);
        assert.equal(countries[i]!.city, null, address);
        assert.equal(countries[i]!.asn, null, address);
      });
    });

    it('bad input, a wrong licence key and none: the client’s own errors', () => {
      assert.deepEqual(runClient(c.language, 'city', ['not-an-ip']), [{ error: c.invalid }]);
      assert.deepEqual(runClient(c.language, 'city', ['8.8.8.8'], 'wrong-key'), [
        { error: c.wrongKey },
      ]);
      assert.deepEqual(runClient(c.language, 'city', ['8.8.8.8'], ''), [{ error: c.noKey }]);
    });
  });
}

describe('the GeoIP2 routes over plain HTTP', () => {
  it('answer MaxMind’s {code, error} (a bad address, the caller’s reserved one, the rate limit) and take the key from Basic auth', async () => {
    const basic = `Basic ${Buffer.from(`42:${KEY}`).toString('base64')}`;
    const bad = await fetch(`http://127.0.0.1:${service.port}/geoip/v2.1/city/not-an-ip`, {
      headers: { authorization: basic },
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'IP_ADDRESS_INVALID');
    const good = await fetch(`http://127.0.0.1:${service.port}/geoip/v2.1/country/8.8.8.8`, {
      headers: { authorization: basic },
    });
    assert.equal(good.status, 200);
    assert.ok(good.headers.get('etag') !== null);
    // the caller's own address (`me`): here loopback, a reserved address
    const me = await fetch(`http://127.0.0.1:${service.port}/geoip/v2.1/city/me`, {
      headers: { authorization: basic },
    });
    assert.equal(me.status, 400);
    assert.equal(((await me.json()) as { code: string }).code, 'IP_ADDRESS_RESERVED');
    // over the key's limit: 429 with Retry-After, MaxMind's OUT_OF_QUERIES
    const tiny = { authorization: `Basic ${Buffer.from(`42:${TINY}`).toString('base64')}` };
    const url = `http://127.0.0.1:${service.port}/geoip/v2.1/country/8.8.8.8`;
    assert.equal((await fetch(url, { headers: tiny })).status, 200);
    const over = await fetch(url, { headers: tiny });
    assert.equal(over.status, 429);
    assert.ok(over.headers.get('retry-after') !== null);
    assert.equal(((await over.json()) as { code: string }).code, 'OUT_OF_QUERIES');
    // Basic is read on these routes only: elsewhere a required key is still missing
    const elsewhere = await fetch(`http://127.0.0.1:${service.port}/ip/8.8.8.8`, {
      headers: { authorization: basic },
    });
    assert.equal(elsewhere.status, 401);
  });
});
