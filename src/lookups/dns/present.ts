// Decoded answers → the API's DNS records ({ name, type, ttl, data }), pure.
// Presentation follows RFC 1035 §5.1 / dig, except TXT, which the API (docs/api.md,
// "Records") fixes as the record's character-strings joined, unquoted.
import { Buffer } from 'node:buffer';
import type { Answer, OptAnswer } from 'dns-packet';
import { AppError } from '../../kit/errors.js';
import { parseIp } from '../../net/ip.js';
import type { RecordType } from './record-type.js';

export interface DnsRecord {
  /** owner name, without trailing dot */
  readonly name: string;
  readonly type: RecordType;
  /** seconds, as the server sent it */
  readonly ttl: number;
  readonly data: string;
}

/** A chain longer than this is a loop or an attack (BIND stops at 16 too). */
const MAX_CHAIN = 16;

/** Every answer but the EDNS pseudo-record, which has no class or TTL. */
export type RecordAnswer = Exclude<Answer, OptAnswer>;

const lower = (name: string) => name.replace(/\.$/, '').toLowerCase();

/** Present a target name as an FQDN with its trailing dot, as MX does in the API (docs/api.md, "Records"). */
export const fqdn = (name: string): string => (name === '.' || name === '' ? '.' : `${name}.`);

/**
 * The owner names reached from `qname` through CNAME records in the answer
 * (RFC 1034 §3.6.2, §4.3.2): a recursive server answers `www CNAME a`, `a CNAME b`,
 * `b A …`. Records at any other owner were not asked for and are dropped.
 */
export function chainNames(answers: readonly Answer[], qname: string): Set<string> {
  const names = new Set([lower(qname)]);
  for (let round = 0; round < MAX_CHAIN; round++) {
    const before = names.size;
    for (const answer of answers) {
      if (answer.type === 'CNAME' && answer.class === 'IN' && names.has(lower(answer.name))) {
        names.add(lower(answer.data));
      }
    }
    if (names.size === before) break;
  }
  return names;
}

/** The answers on the chain from `qname`: CNAME rows and rows of the asked `type`, in server order. */
export function relevantAnswers(
  answers: readonly Answer[],
  qname: string,
  type: Answer['type'],
): RecordAnswer[] {
  const names = chainNames(answers, qname);
  return answers.filter(
    (a): a is RecordAnswer =>
      a.type !== 'OPT' &&
      a.class === 'IN' &&
      (a.type === type || a.type === 'CNAME') &&
      names.has(lower(a.name)),
  );
}

function malformed(answer: RecordAnswer, why: string): AppError {
  return new AppError('UPSTREAM_ERROR', `The DNS server sent a malformed ${answer.type} record`, {
    cause: new Error(`${answer.name} ${answer.type}: ${why}`),
  });
}

/** The `data` string of one answer, or null for a type this API does not show. */
export function presentData(answer: RecordAnswer): string | null {
  switch (answer.type) {
    case 'A': {
      const ip = answer.data.includes(':') ? null : parseIp(answer.data);
      if (ip?.version !== 4) throw malformed(answer, `bad address ${answer.data}`);
      return ip.text;
    }
    case 'AAAA': {
      const ip = parseIp(answer.data);
      if (ip === null) throw malformed(answer, `bad address ${answer.data}`);
      // parseIp unwraps ::ffff:a.b.c.d; an AAAA record keeps RFC 5952 §5's mixed form
      return ip.version === 6 ? ip.text : `::ffff:${ip.text}`;
    }
    case 'MX':
      return `${answer.data.preference ?? 0} ${fqdn(answer.data.exchange)}`;
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return fqdn(answer.data);
    case 'TXT':
      return txtText(answer.data);
    default:
      return null;
  }
}

/**
 * TXT RDATA is one or more character-strings (RFC 1035 §3.3.14). They are
 * joined with no separator (RFC 7208 §3.3 does the same for SPF) and decoded
 * as UTF-8, invalid bytes becoming U+FFFD.
 */
export function txtText(data: string | Buffer | ReadonlyArray<string | Buffer>): string {
  const parts = Array.isArray(data) ? data : [data];
  return Buffer.concat(
    parts.map((p: string | Buffer) => (typeof p === 'string' ? Buffer.from(p) : p)),
  ).toString('utf8');
}

const SHOWN = new Set<string>(['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME']);

/** The records for GET /dns/:domain?type=…, CNAME chain included, each under its owner. */
export function presentRecords(
  answers: readonly Answer[],
  qname: string,
  type: RecordType,
): DnsRecord[] {
  const records: DnsRecord[] = [];
  for (const answer of relevantAnswers(answers, qname, type)) {
    const data = presentData(answer);
    if (data === null || !SHOWN.has(answer.type)) continue;
    records.push({
      name: answer.name === '.' ? '.' : answer.name.replace(/\.$/, ''),
      type: answer.type as RecordType,
      ttl: answer.ttl ?? 0,
      data,
    });
  }
  return records;
}

/** The smallest TTL among `records`, or null when there are none. */
export function minTtl(records: readonly { readonly ttl?: number | undefined }[]): number | null {
  return records.length === 0 ? null : Math.min(...records.map((r) => r.ttl ?? 0));
}

/** RFC 2308 §5: a negative answer may be cached for min(SOA TTL, SOA MINIMUM). */
export function negativeTtl(authorities: readonly Answer[]): number | null {
  for (const a of authorities) {
    if (a.type === 'SOA') return Math.min(a.ttl ?? 0, a.data.minimum ?? 0);
  }
  return null;
}
