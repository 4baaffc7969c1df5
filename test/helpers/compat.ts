// What the tests of the compatible surfaces (ipinfo, ip-api, MaxMind GeoIP2)
// share: seeded addresses of every kind, the service's own answers for them
// (GET /ip/:ip and GET /ip/:ip/vpn, fetched as one POST /batch?include=vpn),
// and a real TLS terminator (nginx, a throw-away self-signed certificate)
// for the clients that speak only HTTPS.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { get } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SeededRandom } from './seeded-random.js';
import { freePort } from './ports.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';
import type { VpnDetection } from '../../src/lookups/vpn/detect.js';
import { nginxHttpScratch, nginxMain } from './nginx.js';
import { spawnService, type SpawnedService } from './spawned-service.js';

/** the records of GET /ip/:ip and /ip/:ip/vpn, as the service's own types say */
export type GeoRecord = GeoIpRecord;
export type VpnRecord = Omit<VpnDetection, 'ip'>;

export interface OwnAnswer {
  geo: GeoRecord;
  vpn: VpnRecord;
}

/** special-purpose addresses: private, loopback, documentation, link-local, multicast, reserved */
const BOGONS = [
  '10.1.2.3',
  '172.16.9.9',
  '192.168.1.1',
  '100.64.0.1',
  '127.0.0.1',
  '169.254.1.1',
  '192.0.2.1',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '240.1.2.3',
  '255.255.255.255',
  '::1',
  'fe80::1',
  'fc00::1',
  'fd12:3456::1',
  '2001:db8::1',
  'ff02::1',
];

/** IPv6 tops where the RIRs allocate (2001:200::/23 on, 2400::/12 … 2c00::/12) */
const V6_TOPS = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];

/** two addresses an override row sets place, network and flags for (OVERRIDES_FILE) */
export const OVERRIDDEN = ['8.8.8.8', '8.8.8.9'];
/** the OVERRIDES_FILE that places OVERRIDDEN */
export const OVERRIDES_CSV = `network,city,region,asn,org,isVpn,provider\n8.8.8.0/24,Leipzig,Saxony,AS64500,Example Overridden Net,true,ExampleVPN\n`;

/** The clients' 1,000 addresses: OVERRIDDEN, then seededAddresses. */
export function clientAddresses(random: SeededRandom): string[] {
  return [...OVERRIDDEN, ...seededAddresses(random, 1000 - OVERRIDDEN.length)];
}

/**
 * `count` distinct addresses: ~60 % random IPv4 (bogons among them as the
 * address space holds them), ~30 % IPv6 in the RIRs' allocations, and a
 * bogon of every kind.
 */
export function seededAddresses(random: SeededRandom, count: number): string[] {
  const out = new Set<string>(BOGONS);
  while (out.size < count) {
    if (random.chance(0.66)) {
      const n = random.u32();
      out.add(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`);
    } else {
      const top = random.pick(V6_TOPS);
      const first = top === 0x2001 ? 0x2001 : top + random.below(16);
      const groups = [first, random.below(0x10000), random.below(0x10000), random.below(0x10000)];
      out.add(
        `${groups.map((g) => g.toString(16)).join(':')}::${random.below(0x10000).toString(16)}`,
      );
    }
  }
  return [...out];
}

/** The service's own GeoIP and VPN records of the addresses, by address as sent. */
export async function ownAnswers(
  base: string,
  addresses: readonly string[],
  headers: Record<string, string> = {},
): Promise<Map<string, OwnAnswer>> {
  const response = await fetch(`${base}/batch?include=vpn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(addresses),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    data: { results: { query: string; data?: GeoRecord & { vpn: VpnRecord } }[] };
  };
  const out = new Map<string, OwnAnswer>();
  for (const result of body.data.results) {
    if (result.data === undefined) continue;
    const { vpn, ...geo } = result.data;
    out.set(result.query, { geo, vpn });
  }
  assert.equal(out.size, addresses.length, 'every seeded address is one the service answers');
  return out;
}

/** Whether the data knows nothing of a public address (no country, network or coordinates). */
export function unknownToData(geo: GeoRecord): boolean {
  return !geo.bogon && geo.country === null && geo.asn === null && geo.latitude === null;
}

export interface TlsTerminator {
  port: number;
  /** the PEM file of the throw-away certificate, for the clients to trust */
  certificate: string;
  stop(): Promise<void>;
}

/**
 * nginx terminating TLS on a loopback port with a self-signed certificate
 * for 127.0.0.1 made by openssl now, passing requests on to `upstreamPort`.
 */
export async function startTlsTerminator(
  dir: string,
  upstreamPort: number,
): Promise<TlsTerminator> {
  const certificate = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certificate,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  assert.equal(made.status, 0, `openssl: ${made.stderr}`);
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `${nginxMain(dir)}
master_process off;
events { worker_connections 256; }
http {
${nginxHttpScratch(dir)}
  upstream ipintel { server 127.0.0.1:${upstreamPort}; keepalive 8; }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${certificate};
    ssl_certificate_key ${key};
    location / {
      proxy_pass http://ipintel;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
  );
  const nginx: ChildProcess = spawn(
    '/usr/sbin/nginx',
    ['-p', dir, '-c', conf, '-e', join(dir, 'nginx-error.log')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  nginx.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (nginx.exitCode !== null || nginx.signalCode !== null) return;
    nginx.kill('SIGTERM');
    await once(nginx, 'exit');
  };
  // nginx answers once it listens: a TLS handshake trusting the certificate, then the service's /healthz
  const ca = await readFile(certificate);
  for (let i = 0; i < 200; i++) {
    if (nginx.exitCode !== null) assert.fail(`nginx exited: ${stderr}`);
    if ((await probe(port, ca)) === 200) return { port, certificate, stop };
    await sleep(50);
  }
  await stop();
  assert.fail(`nginx did not answer on 127.0.0.1:${port}: ${stderr}`);
}

/** The status of GET /healthz through TLS trusting `ca`, or 0 when it fails. */
function probe(port: number, ca: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(5_000, () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * The service the clients' tests talk to: the operator's override of
 * OVERRIDES_CSV, and two API keys — `key` with room for a whole test,
 * `tiny` with a limit of 1 (the clients' "out of queries" errors) — in a
 * folder of its own under `prefix`, removed by `close()`.
 */
export async function keyedCompatService(
  prefix: string,
  key: string,
  tiny: string,
  env: Record<string, string> = {},
): Promise<{ service: SpawnedService; dir: string; close: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const keys = join(dir, 'keys.csv');
  writeFileSync(join(dir, 'overrides.csv'), OVERRIDES_CSV);
  writeFileSync(keys, `name,key,limit\nclient,${key},100000\ntiny,${tiny},1\n`);
  const service = await spawnService({
    API_KEYS_FILE: keys,
    OVERRIDES_FILE: join(dir, 'overrides.csv'),
    LOG_LEVEL: 'warn',
    FEED_UPDATE_INTERVAL_HOURS: '0',
    ...env,
  });
  return {
    service,
    dir,
    close: () => {
      service.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
