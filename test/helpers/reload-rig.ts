// The real service twice over one DATA_DIR, for the update tests: in this
// process with its reloader (the change check a timer or the end of an
// update runs) and in a process of its own (told by SIGHUP).
import { DataReloader } from '../../src/life/reloader.js';
import type { Config } from '../../src/config.js';
import { serviceData, silentLog, startService, type TestService } from './service.js';
import { spawnService, type SpawnedService } from './spawned-service.js';
import { until } from './wait.js';

export interface ReloadRig {
  service: TestService;
  config: Readonly<Config>;
  spawned: SpawnedService;
  reloader: DataReloader;
  /** SIGHUP to the spawned service; resolves once it says it reloaded */
  sighup(): Promise<void>;
  close(): Promise<void>;
}

export async function startReloadRig(env: Record<string, string>): Promise<ReloadRig> {
  const service = await startService({ env });
  const { config } = service;
  const spawned = await spawnService(env);
  const reloader = new DataReloader(config, await serviceData(config), silentLog);
  return {
    service,
    config,
    spawned,
    reloader,
    sighup: async () => {
      spawned.kill('SIGHUP');
      await until(() =>
        spawned
          .logLines<{ msg: string; reason?: string }>()
          .some((l) => l.msg === 'GeoIP/ASN data reloaded' && l.reason === 'SIGHUP'),
      );
    },
    close: async () => {
      spawned.kill();
      await spawned.exited;
      await service.close();
    },
  };
}
