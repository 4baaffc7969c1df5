// A structural walk over a DNS message (RFC 1035 §4.1) before dns-packet
// decodes it. dns-packet trusts RDLENGTH too much: an A record cut short
// decodes to "192.0.undefined.undefined", and a record whose RDATA is shorter
// or longer than RDLENGTH shifts every later record. This walk finds where
// each section ends by RDLENGTH alone, so the two can be compared.
import { Buffer } from 'node:buffer';

const HEADER = 12;

/** RDATA sizes fixed by their RFCs: A (RFC 1035 §3.4.1), AAAA (RFC 3596 §2.2). */
const FIXED_RDLENGTH = new Map<number, number>([
  [1, 4],
  [28, 16],
]);

/** Offset after the name at `offset` (labels or a final pointer, RFC 1035 §4.1.4), or null. */
function skipName(message: Buffer, offset: number): number | null {
  let at = offset;
  for (;;) {
    if (at >= message.length) return null;
    const length = message[at] ?? 0;
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) return at + 2 <= message.length ? at + 2 : null;
    if ((length & 0xc0) !== 0) return null; // 0x40 and 0x80 label types are not in use
    at += 1 + length;
  }
}

/**
 * Where the last record of the message ends, or a reason the message is
 * malformed. Names are only skipped here; dns-packet checks their pointers.
 */
export function messageEnd(message: Buffer): { end: number } | { problem: string } {
  if (message.length < HEADER) return { problem: 'shorter than a DNS header' };
  const questions = message.readUInt16BE(4);
  const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10);
  let at = HEADER;
  for (let i = 0; i < questions; i++) {
    const next = skipName(message, at);
    if (next === null || next + 4 > message.length) return { problem: 'question cut short' };
    at = next + 4;
  }
  for (let i = 0; i < records; i++) {
    const next = skipName(message, at);
    if (next === null || next + 10 > message.length) return { problem: 'record cut short' };
    const type = message.readUInt16BE(next);
    const rdlength = message.readUInt16BE(next + 8);
    const fixed = FIXED_RDLENGTH.get(type);
    if (fixed !== undefined && rdlength !== fixed) {
      return { problem: `type ${type} record with RDLENGTH ${rdlength}, not ${fixed}` };
    }
    at = next + 10 + rdlength;
    if (at > message.length) return { problem: 'RDATA runs past the end of the message' };
  }
  return { end: at };
}
