// Walks every record of an MMDB data section, in file order. The reader's
// public API only answers per address; building the time-zone table needs the
// set of distinct records, which is exactly the data section (MMDB spec §
// "Data Section": records are written once and pointed at from the tree).
import { Buffer } from 'node:buffer';
import Decoder from 'mmdb-lib/lib/decoder.js';
import { Reader } from 'maxmind';

const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');
const DATA_SECTION_SEPARATOR = 16;

interface DecoderLike {
  decode(offset: number): { value: unknown; offset: number };
}
type DecoderClass = new (db: Buffer, baseOffset: number) => DecoderLike;

export function* scanRecords(buffer: Buffer): Generator<unknown> {
  const reader = new Reader<object>(buffer);
  const start = reader.metadata.searchTreeSize + DATA_SECTION_SEPARATOR;
  const end = buffer.lastIndexOf(METADATA_MARKER);
  const DecoderCtor = ((Decoder as unknown as { default?: DecoderClass }).default ??
    Decoder) as unknown as DecoderClass;
  const decoder = new DecoderCtor(buffer, start);
  let offset = start;
  while (offset < end) {
    const { value, offset: next } = decoder.decode(offset);
    if (next <= offset) break;
    offset = next;
    yield value;
  }
}
