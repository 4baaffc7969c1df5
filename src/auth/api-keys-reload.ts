// API_KEYS_FILE picked up without a restart: a cheap stat every few seconds
// (a revoked key stops working within that) and a full read on SIGHUP. A
// file that cannot be used is refused, naming its lines, and the keys in use
// keep answering.
import type { Logger } from 'pino';
import type { ApiKeySource } from './api-key-source.js';
import { ApiKeysFileError } from './api-keys.js';

/** how often API_KEYS_FILE is checked for a change (one stat): a revoked key stops working within this */
const API_KEYS_CHECK_MS = 5_000;

export class ApiKeysReloader {
  constructor(
    private readonly apiKeys: ApiKeySource,
    private readonly log: Logger,
  ) {}

  /** Checks the file every few seconds from now on (the timer does not keep the process alive). */
  watch(): void {
    setInterval(() => this.reload('timer'), API_KEYS_CHECK_MS).unref();
  }

  /** 'timer' reads the file only when its stamp changed; any other reason (SIGHUP) reads it whole. */
  reload(reason: string): void {
    const { log } = this;
    this.apiKeys
      .reload({ ifChanged: reason === 'timer' })
      .then((outcome) => {
        if (outcome.reloaded) log.info({ reason, keys: outcome.keys }, 'API keys reloaded');
      })
      .catch((error: unknown) =>
        log.error(
          { problems: error instanceof ApiKeysFileError ? error.problems : [String(error)] },
          'API_KEYS_FILE refused; keeping the keys in use',
        ),
      );
  }
}
