// A small authoritative DNS server on loopback for the DNS, reverse DNS and
// DNSBL tests: UDP and TCP on one port, a zone table given by the test, and
// misbehaviours on demand (errors, silence, garbage, forged and truncated replies).
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import dnsPacket from 'dns-packet';
import type { Answer, DecodedPacket, Packet, RecordType } from 'dns-packet';

export type Behaviour =
  | 'servfail'
  | 'refused'
  | 'formerr'
  /** FORMERR with the question section left out, as some servers send it */
  | 'formerr-no-question'
  /** never answers */
  | 'drop'
  /** our ID, then bytes that cannot be decoded */
  | 'garbage'
  /** bytes that do not even carry the query's ID (must be ignored) */
  | 'junk'
  /** a forged reply with another ID, then (20 ms later) the real one */
  | 'wrong-id'
  /** only the forged reply with another ID */
  | 'wrong-id-only'
  /** a reply with the right ID for another question, then the real one */
  | 'wrong-question'
  /** a reply with the right ID from another source port, then the real one */
  | 'wrong-port'
  /** UDP: TC=1 and no records; TCP: the full answer */
  | 'truncate'
  /** UDP: TC=1; TCP: bytes that cannot be decoded */
  | 'truncate-then-garbage'
  /** UDP: TC=1; TCP: never answers */
  | 'truncate-then-drop';

export interface ZoneRecord {
  readonly type: RecordType;
  /** dns-packet's data for the type: an address, a name, { preference, exchange }, string[]… */
  readonly data: unknown;
  readonly ttl?: number;
}

export interface NameEntry {
  readonly records?: readonly ZoneRecord[];
  readonly behaviour?: Behaviour;
  /** apply `behaviour` to the first `times` queries for this name only, then answer */
  readonly times?: number;
  /** apply `behaviour` to queries of these types only (e.g. drop TXT, answer A) */
  readonly behaviourTypes?: readonly RecordType[];
}

/** Owner name (any case, no trailing dot) → what the server knows about it. */
export type ZoneTable = Readonly<Record<string, NameEntry>>;

export interface LoggedQuery {
  readonly transport: 'udp' | 'tcp';
  readonly name: string;
  readonly type: string;
  readonly id: number;
  /** the EDNS0 UDP payload size the query advertised, or null without OPT */
  readonly ednsPayload: number | null;
}

export interface DnsTestServer {
  readonly host: string;
  readonly port: number;
  readonly queries: LoggedQuery[];
  close(): Promise<void>;
}

const DEFAULT_TTL = 300;
const FORGED_TTL = 1;
/** Negative answers carry this SOA so that RFC 2308 negative TTLs can be tested. */
export const TEST_SOA: Answer = {
  type: 'SOA',
  name: 'test',
  ttl: 900,
  class: 'IN',
  data: { mname: 'ns.test', rname: 'hostmaster.test', serial: 1, minimum: 60 },
};

/** Our ID; the header claims 1 question and 1 answer, then the message ends mid-name. */
function garbage(id: number): Buffer {
  return Buffer.from([id >> 8, id & 255, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 7, 0x61]);
}

interface Reply {
  readonly bytes: Buffer;
  readonly delayMs: number;
  /** send from a second socket (another source port) */
  readonly fromOtherPort?: boolean;
}

export async function startDnsServer(zone: ZoneTable, host = '127.0.0.1'): Promise<DnsTestServer> {
  const table = new Map(Object.entries(zone).map(([k, v]) => [k.toLowerCase(), v]));
  const seen = new Map<string, number>();
  const queries: LoggedQuery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const connections = new Set<TcpSocket>();

  const later = (delayMs: number, send: () => void) => {
    if (delayMs === 0) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, delayMs);
    timers.add(timer);
  };

  const respond = (message: Buffer, transport: 'udp' | 'tcp'): Reply[] => {
    let query: DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return [];
    }
    const question = query.questions?.[0];
    const opt = query.additionals?.find((a) => a.type === 'OPT');
    queries.push({
      transport,
      name: question?.name ?? '',
      type: question?.type ?? '',
      id: query.id ?? 0,
      ednsPayload: opt?.type === 'OPT' ? opt.udpPayloadSize : null,
    });
    return question === undefined ? [] : plan(query, question, transport);
  };

  const plan = (
    query: DecodedPacket,
    question: NonNullable<Packet['questions']>[number],
    transport: 'udp' | 'tcp',
  ): Reply[] => {
    const id = query.id ?? 0;
    const key = question.name.toLowerCase();
    const entry = table.get(key);
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    const active =
      (entry?.times === undefined || count <= entry.times) &&
      (entry?.behaviourTypes === undefined || entry.behaviourTypes.includes(question.type));
    const base: Packet = { type: 'response', id, flags: 0x0500, questions: [question] }; // AA RD
    const reply = (p: Packet, delayMs = 0, fromOtherPort = false): Reply => ({
      bytes: dnsPacket.encode(p),
      delayMs,
      fromOtherPort,
    });
    const withRcode = (rcode: number): Packet => ({ ...base, flags: 0x0500 | rcode });
    const real = (): Reply => reply(answerPacket(base, key, question.type));
    const forgedAnswers: Answer[] = [
      { type: 'A', name: question.name, ttl: FORGED_TTL, class: 'IN', data: '6.6.6.6' },
    ];
    switch (active ? entry?.behaviour : undefined) {
      case 'servfail':
        return [reply(withRcode(2))];
      case 'refused':
        return [reply(withRcode(5))];
      case 'formerr':
        return [reply(withRcode(1))];
      case 'formerr-no-question':
        return [reply({ ...withRcode(1), questions: [] })];
      case 'drop':
        return [];
      case 'truncate-then-garbage':
      case 'truncate-then-drop':
        if (transport === 'udp') {
          return [reply({ ...base, flags: 0x0500 | dnsPacket.TRUNCATED_RESPONSE })];
        }
        if (entry?.behaviour === 'truncate-then-drop') return [];
        return [{ bytes: garbage(id), delayMs: 0 }];
      case 'garbage':
        return [{ bytes: garbage(id), delayMs: 0 }];
      case 'junk':
        return [{ bytes: Buffer.from([(id >> 8) ^ 0xff, id & 255, 0xde, 0xad]), delayMs: 0 }];
      case 'wrong-id':
        return [
          reply({ ...base, id: id ^ 0x8000, answers: forgedAnswers }),
          { ...real(), delayMs: 20 },
        ];
      case 'wrong-id-only':
        return [reply({ ...base, id: id ^ 0x8000, answers: forgedAnswers })];
      case 'wrong-question': {
        const other = { ...question, name: `evil.${question.name}` };
        const forged = {
          ...base,
          questions: [other],
          answers: [{ ...forgedAnswers[0]!, name: other.name }],
        };
        return [reply(forged), { ...real(), delayMs: 20 }];
      }
      case 'wrong-port':
        return [reply({ ...base, answers: forgedAnswers }, 0, true), { ...real(), delayMs: 20 }];
      case 'truncate':
        return transport === 'udp'
          ? [reply({ ...base, flags: 0x0500 | dnsPacket.TRUNCATED_RESPONSE })]
          : [real()];
      case undefined:
        return [real()];
    }
  };

  /** Answers as a recursive resolver would: follow CNAMEs inside the table. */
  const answerPacket = (base: Packet, key: string, type: RecordType): Packet => {
    if (!table.has(key)) return { ...base, flags: 0x0503, authorities: [TEST_SOA] }; // NXDOMAIN
    const answers: Answer[] = [];
    let current = key;
    for (let hop = 0; hop < 10; hop++) {
      const owner = [...Object.keys(zone)].find((k) => k.toLowerCase() === current) ?? current;
      const records = table.get(current)?.records ?? [];
      const matching = records.filter((r) => r.type === type);
      const cname = records.find((r) => r.type === 'CNAME');
      const toAnswer = (r: ZoneRecord) =>
        ({
          type: r.type,
          name: owner,
          ttl: r.ttl ?? DEFAULT_TTL,
          class: 'IN',
          data: r.data,
        }) as Answer;
      if (matching.length > 0) {
        answers.push(...matching.map(toAnswer));
        break;
      }
      if (cname === undefined || type === 'CNAME') break;
      answers.push(toAnswer(cname));
      current = String(cname.data).toLowerCase();
    }
    return answers.length > 0 ? { ...base, answers } : { ...base, authorities: [TEST_SOA] };
  };

  const spoofer = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const onMessage = (udp: UdpSocket) => (message: Buffer, from: RemoteInfo) => {
    for (const r of respond(message, 'udp')) {
      const socket: UdpSocket = r.fromOtherPort === true ? spoofer : udp;
      later(r.delayMs, () => socket.send(r.bytes, from.port, from.address, () => undefined));
    }
  };
  const tcp: Server = createServer((conn) => {
    connections.add(conn);
    conn.on('close', () => connections.delete(conn));
    conn.on('error', () => conn.destroy());
    let buffered = Buffer.alloc(0);
    conn.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        for (const r of respond(message, 'tcp')) {
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(r.bytes.length);
          later(r.delayMs, () => {
            if (!conn.destroyed) conn.write(Buffer.concat([prefix, r.bytes]));
          });
        }
      }
    });
  });

  const { udp, port } = await listenBoth(tcp, host);
  udp.on('message', onMessage(udp));
  await new Promise<void>((resolve) => spoofer.bind(0, host, resolve));

  return {
    host,
    port,
    queries,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const conn of connections) conn.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => spoofer.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

/** Binds UDP to an ephemeral port, then TCP to the same one; a fresh UDP socket if TCP finds it taken. */
async function listenBoth(tcp: Server, host: string): Promise<{ udp: UdpSocket; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const port = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, host, () => {
        udp.off('error', reject);
        resolve(udp.address().port);
      });
    });
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, host, () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      return { udp, port };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 10) throw error;
    }
  }
}
