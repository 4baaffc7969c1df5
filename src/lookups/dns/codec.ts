// The pure wire half of the stub resolver: build a query, and judge a reply.
// dns-packet does the RFC 1035 §4 encoding; this file decides which replies
// belong to which query (RFC 5452 §9.1: ID, question and addresses must match).
import { Buffer } from 'node:buffer';
import type { DecodedPacket, RecordType as WireType } from 'dns-packet';
import { requiredLater } from '../../later/required-later.js';
import { messageEnd } from './layout.js';

// dns-packet (with its dependencies ~45 ms to load) is read at the first
// query, not at start: most requests never ask DNS
const wire = requiredLater<typeof import('dns-packet')>('dns-packet');

export interface Question {
  /** without trailing dot, as dns-packet writes and reads names */
  readonly name: string;
  readonly type: WireType;
}

/** The verdict on one datagram or TCP frame received for a query. */
export type Verdict =
  | { readonly kind: 'accept'; readonly packet: DecodedPacket }
  // not ours (wrong ID, not a response, another question): drop it and keep waiting
  | { readonly kind: 'ignore'; readonly reason: string }
  // carries our ID but cannot be decoded: the server is broken
  | { readonly kind: 'garbage'; readonly cause: Error };

/**
 * DNS Flag Day 2020 buffer size: big enough for most answers, small enough to
 * avoid IP fragmentation (RFC 6891 §6.2.5 leaves the value to the requestor).
 */
export const EDNS_UDP_PAYLOAD = 1232;

/** A recursive query (RD, RFC 1035 §4.1.1) for one question, class IN, with an EDNS0 OPT record. */
export function encodeQuery(id: number, question: Question): Buffer {
  return wire().encode({
    type: 'query',
    id,
    flags: wire().RECURSION_DESIRED,
    questions: [{ name: question.name, type: question.type, class: 'IN' }],
    additionals: [
      // RFC 6891 §6.1.2: owner is the root; the class field carries the payload size
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: EDNS_UDP_PAYLOAD,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: 0,
        flag_do: false,
        options: [],
      },
    ],
  });
}

function sameName(a: string, b: string): boolean {
  // RFC 4343: DNS names compare case-insensitively (ASCII only)
  const norm = (n: string) => n.replace(/\.$/, '').toLowerCase();
  return norm(a) === norm(b);
}

// Error answers that are allowed to leave the question section out: several
// servers send FORMERR/REFUSED/NOTIMP with QDCOUNT 0. Such a reply can only
// ever make the lookup fail, never inject data, so the ID and address check suffice.
const QUESTIONLESS_OK = new Set(['FORMERR', 'SERVFAIL', 'NOTIMP', 'REFUSED']);

/** Judges `message` as the reply to query `id` for `question`. Never throws. */
export function matchResponse(message: Buffer, id: number, question: Question): Verdict {
  if (message.length < 2 || message.readUInt16BE(0) !== id) {
    return { kind: 'ignore', reason: 'wrong ID' };
  }
  const layout = messageEnd(message);
  if ('problem' in layout) return { kind: 'garbage', cause: new Error(layout.problem) };
  let packet: DecodedPacket;
  try {
    packet = wire().decode(message);
  } catch (error) {
    return {
      kind: 'garbage',
      cause: error instanceof Error ? error : new Error(String(error)),
    };
  }
  // every record's RDATA must have been read exactly as its RDLENGTH says
  if (wire().decode.bytes !== layout.end) {
    return { kind: 'garbage', cause: new Error('RDATA does not match RDLENGTH') };
  }
  if (!packet.flag_qr) return { kind: 'ignore', reason: 'not a response' };
  const questions = packet.questions ?? [];
  const rcode = rcodeOf(packet);
  if (questions.length === 0 && QUESTIONLESS_OK.has(rcode)) return { kind: 'accept', packet };
  const echoed = questions[0];
  if (
    questions.length !== 1 ||
    echoed === undefined ||
    !sameName(echoed.name, question.name) ||
    echoed.type !== question.type ||
    echoed.class !== 'IN'
  ) {
    return { kind: 'ignore', reason: 'question does not match' };
  }
  return { kind: 'accept', packet };
}

/** dns-packet decodes the 4-bit RCODE to a name (NOERROR, NXDOMAIN, …) but does not type it. */
export function rcodeOf(packet: DecodedPacket): string {
  const rcode = (packet as DecodedPacket & { rcode?: unknown }).rcode;
  return typeof rcode === 'string' ? rcode : 'UNKNOWN';
}
