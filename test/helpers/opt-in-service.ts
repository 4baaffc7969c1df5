// The real service in its own process beside `update-data` runs of one
// opt-in location source (GeoLite2, IPinfo Lite, IP2Location LITE DB11), on
// one DATA_DIR: the update as the service's schedule runs it, the reload on
// SIGHUP, the answers and GET /'s location sources as a client sees them,
// and the check every failure case makes (the copy kept, the reason said,
// recorded, the token nowhere).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import type { ServiceData } from '../../src/composition.js';
import { readStatus, type UpdatedSet } from '../../src/lookups/geoip/update/update-status.js';
import { runUpdateData } from '../../src/update/update-data.js';
import { getOnce } from './http-get.js';
import { dataOf, serviceData, silentLog } from './service.js';
import { spawnService, type SpawnedService } from './spawned-service.js';
import { until } from './wait.js';

export interface OptInAnswer {
  record: {
    country: string | null;
    city: string | null;
    timezone?: string | null;
    accuracyRadiusKm?: number | null;
  };
  /** X-Location-Source */
  source: string;
}

export interface ListedSource {
  id: string;
  licence: string;
  version: string | null;
  attribution: { text: string; url: string } | null;
}

export const fileHash = (path: string): string =>
  createHash('sha256').update(readFileSync(path)).digest('hex');

export class OptInService {
  private reloads = 0;

  private constructor(
    readonly kind: UpdatedSet,
    readonly config: Readonly<Config>,
    private readonly current: ServiceData,
    private readonly spawned: SpawnedService,
    private readonly env: Record<string, string>,
  ) {}

  /** The data loaded here (for the update's comparisons) and the service spawned, both on `env`. */
  static async start(kind: UpdatedSet, env: Record<string, string>): Promise<OptInService> {
    const config = loadConfig(env);
    return new OptInService(kind, config, await serviceData(config), await spawnService(env), env);
  }

  get port(): number {
    return this.spawned.port;
  }

  /** The configuration with `over` in the environment. */
  configWith(over: Record<string, string>): Readonly<Config> {
    return loadConfig({ ...this.env, ...over });
  }

  /** `update-data --only <kind>` as the service's schedule runs it; its lines and status */
  async updateData(config = this.config): Promise<{ status: number; text: string }> {
    const lines: string[] = [];
    const status = await runUpdateData({
      config,
      dataDir: config.dataDir,
      only: new Set([this.kind]),
      out: { write: (text: string) => lines.push(text) },
      log: silentLog,
      current: this.current.geo,
    });
    return { status, text: lines.join('') };
  }

  /** SIGHUP, and the reload done */
  async reload(): Promise<void> {
    this.reloads++;
    this.spawned.kill('SIGHUP');
    await until(
      () =>
        this.spawned
          .logLines<{ msg: string; reason?: string }>()
          .filter((l) => l.msg === 'GeoIP/ASN data reloaded' && l.reason === 'SIGHUP').length >=
        this.reloads,
    );
  }

  async answerOf(ip: string): Promise<OptInAnswer> {
    const res = await getOnce(this.spawned.port, `/ip/${ip}`);
    assert.equal(res.status, 200, res.body);
    return {
      record: dataOf<OptInAnswer['record']>(JSON.parse(res.body)),
      source: String(res.headers['x-location-source'] ?? ''),
    };
  }

  async listed(id: string): Promise<ListedSource | undefined> {
    const res = await getOnce(this.spawned.port, '/');
    const info = dataOf<{ locationSources: ListedSource[] }>(JSON.parse(res.body));
    return info.locationSources.find((s) => s.id === id);
  }

  /** A failed run: exit 1, the reason printed and recorded, `kept` unchanged, `secret` nowhere. */
  async assertRefused(
    name: string,
    reason: RegExp,
    kept: Record<string, string>,
    secret: string,
    config = this.config,
  ): Promise<void> {
    const { status, text } = await this.updateData(config);
    assert.equal(status, 1, `${name}: ${text}`);
    assert.match(text, new RegExp(`${this.kind}\\s+FAILED`), name);
    assert.match(text, reason, name);
    const recorded = readStatus(config.dataDir)[this.kind];
    assert.equal(recorded?.outcome, 'failed', name);
    assert.match(recorded?.error ?? '', reason, name);
    for (const [path, hash] of Object.entries(kept)) {
      assert.equal(fileHash(path), hash, `${name}: ${path} is kept`);
    }
    const record = readFileSync(join(config.dataDir, 'tables', `${this.kind}.fetch.json`), 'utf8');
    const said = `${text}\n${JSON.stringify(readStatus(config.dataDir))}\n${record}`;
    assert.equal(said.includes(secret), false, `${name}: the token appears nowhere`);
    assert.match(record, /token=\[redacted\]/);
  }

  async metrics(): Promise<string> {
    return (await getOnce(this.spawned.port, '/metrics')).body;
  }

  async stop(): Promise<void> {
    this.spawned.kill();
    await this.spawned.exited;
  }
}
