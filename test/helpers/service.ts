// The service under test, built the way src/main.ts builds it: data loaded
// once per test file (it is the slow part) and shared by every app, each app
// listening on 127.0.0.1 port 0 and closed with all its connections.
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import {
  buildService,
  loadServiceData,
  type ServiceData,
  type ServiceOverrides,
} from '../../src/composition.js';
import type { App } from '../../src/app.js';

export const silentLog = pino({ level: 'silent' });

const loaded = new Map<string, Promise<ServiceData>>();

/** The data a configuration names, loaded once per process for each GEOIP_DB/ASN_DB pair. */
export function serviceData(config: Readonly<Config>): Promise<ServiceData> {
  const key = `${config.geoipDb ?? ''}|${config.asnDb ?? ''}|${config.dataDir}|${config.overridesFile}`;
  let data = loaded.get(key);
  if (data === undefined) {
    data = loadServiceData(config, silentLog);
    loaded.set(key, data);
  }
  return data;
}

export interface TestService {
  app: App;
  config: Readonly<Config>;
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  overrides?: ServiceOverrides;
}

/** An app built but not listening, for in-process tests (see test/helpers/inject.ts). */
export async function buildTestApp(
  options: StartOptions = {},
): Promise<{ app: App; config: Readonly<Config> }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...options.env });
  const data = await serviceData(config);
  return { app: buildService(config, data, silentLog, options.overrides ?? {}), config };
}

export async function startService(options: StartOptions = {}): Promise<TestService> {
  const { app, config } = await buildTestApp(options);
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    config,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        app.server.close((error) => (error ? reject(error) : resolve()));
        app.server.closeAllConnections();
      }),
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** fetch() to the loopback service, body read and parsed (null when it is not JSON). */
export async function get(
  baseUrl: string,
  path: string,
  init: RequestInit = {},
): Promise<JsonResponse> {
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** `{error:{code}}` of an error body, or undefined. */
export function errorCode(body: unknown): string | undefined {
  return (body as { error?: { code?: string } } | null)?.error?.code;
}

/** `data` of a success body. */
export function dataOf<T = Record<string, unknown>>(body: unknown): T {
  return (body as { data: T }).data;
}
