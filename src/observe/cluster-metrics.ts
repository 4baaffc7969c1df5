// /metrics under WORKERS=n: one scrape reaches one worker, but it must count
// every worker's requests. The worker that answers asks the cluster primary,
// which gathers each worker's metrics (prom-client's JSON form) over IPC and
// adds them up with prom-client's own cluster aggregation (counters and
// histograms summed; each gauge by the rule it declares: the oldest data set
// age, Redis up only if every worker sees it up, and so on). One IPC message
// per worker per scrape, never per request.
//
// Bounded: the primary waits GATHER_MS for the workers' parts and aggregates
// what came (a worker restarting misses one scrape); the asking worker waits
// ASK_MS for the primary and otherwise answers 503, so a scrape fails visibly
// instead of reporting one worker's counts as the whole service's.
import type { Worker } from 'node:cluster';
import { AppError } from '../kit/errors.js';
import type { Metrics } from './metrics.js';

const ASK = 'ipintel:metrics:ask';
const REPLY = 'ipintel:metrics:reply';
const COLLECT = 'ipintel:metrics:collect';
const PART = 'ipintel:metrics:part';

export const GATHER_MS = 1_500;
export const ASK_MS = 3_000;

/** One worker's metrics as prom-client's Registry.getMetricsAsJSON() gives them. */
export type MetricsPart = readonly unknown[];

/** prom-client's AggregatorRegistry.aggregate, then its text (loaded when first needed). */
export type Aggregate = (parts: MetricsPart[]) => Promise<string>;

interface Message {
  type?: unknown;
  id?: unknown;
}

// ---- the primary's side ----------------------------------------------------

interface Gathering {
  parts: MetricsPart[];
  pending: number;
  timer: NodeJS.Timeout;
  finish: () => void;
}

/**
 * In the primary: answers a worker's ASK with the sum of every live worker's
 * metrics. `on` subscribes to every worker's messages (cluster.on('message')).
 */
export function serveClusterMetrics(
  on: (listener: (worker: Worker, message: unknown) => void) => void,
  workers: () => Worker[],
  aggregate: Aggregate,
  gatherMs: number = GATHER_MS,
): void {
  const gatherings = new Map<number, Gathering>();
  let nextId = 1;
  on((worker, raw) => {
    const message = raw as Message;
    if (message.type === PART && typeof message.id === 'number') {
      const gathering = gatherings.get(message.id);
      const metrics = (raw as { metrics?: unknown }).metrics;
      if (gathering === undefined) return; // late: that scrape is answered
      if (Array.isArray(metrics)) gathering.parts.push(metrics);
      if (--gathering.pending === 0) gathering.finish();
      return;
    }
    if (message.type !== ASK || typeof message.id !== 'number') return;
    const askId = message.id;
    const id = nextId++;
    const targets = workers().filter((w) => w.isConnected());
    const finish = (): void => {
      const gathering = gatherings.get(id);
      if (gathering === undefined) return;
      gatherings.delete(id);
      clearTimeout(gathering.timer);
      aggregate(gathering.parts).then(
        (text) => reply(worker, { type: REPLY, id: askId, text }),
        (error: unknown) => reply(worker, { type: REPLY, id: askId, error: String(error) }),
      );
    };
    gatherings.set(id, {
      parts: [],
      pending: targets.length,
      timer: setTimeout(finish, gatherMs),
      finish,
    });
    if (targets.length === 0) finish();
    for (const target of targets) target.send({ type: COLLECT, id }, undefined, () => undefined);
  });
}

function reply(worker: Worker, message: object): void {
  if (worker.isConnected()) worker.send(message, undefined, () => undefined);
}

// ---- the worker's side -----------------------------------------------------

/** The worker's end of the channel to the primary (process.send / 'message'). */
export interface PrimaryChannel {
  send(message: object): boolean;
  onMessage(listener: (message: unknown) => void): void;
}

export function processChannel(): PrimaryChannel {
  return {
    send: (message) => {
      if (process.send === undefined || !process.connected) return false;
      process.send(message, undefined, undefined, () => undefined);
      return true;
    },
    onMessage: (listener) => void process.on('message', listener),
  };
}

/**
 * A worker's Metrics whose render() is the whole cluster's: it answers the
 * primary's COLLECT with its own metrics, and asks the primary at a scrape.
 */
export function clusterMetrics(
  local: Metrics,
  channel: PrimaryChannel = processChannel(),
  askMs: number = ASK_MS,
): Metrics {
  const waiting = new Map<number, (reply: { text?: unknown; error?: unknown }) => void>();
  let nextId = 1;
  channel.onMessage((raw) => {
    const message = raw as Message;
    if (typeof message.id !== 'number') return;
    if (message.type === COLLECT) {
      const id = message.id;
      local.snapshot().then(
        (metrics) => channel.send({ type: PART, id, metrics }),
        () => channel.send({ type: PART, id, metrics: null }),
      );
    } else if (message.type === REPLY) {
      waiting.get(message.id)?.(raw as { text?: unknown; error?: unknown });
    }
  });
  const render = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const unavailable = (why: string) =>
        new AppError('SERVICE_UNAVAILABLE', `the workers' metrics could not be gathered: ${why}`);
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(unavailable(`the cluster primary did not answer within ${askMs} ms`));
      }, askMs);
      waiting.set(id, (answer) => {
        waiting.delete(id);
        clearTimeout(timer);
        if (typeof answer.text === 'string') resolve(answer.text);
        else reject(unavailable(typeof answer.error === 'string' ? answer.error : 'no answer'));
      });
      if (!channel.send({ type: ASK, id })) {
        waiting.delete(id);
        clearTimeout(timer);
        reject(unavailable('no channel to the cluster primary'));
      }
    });
  return { ...local, render };
}
