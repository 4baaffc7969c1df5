// Every leaf of an MMDB search tree, in address order (MaxMind DB format 2.0,
// "Search Tree Section"): the compiler's way through a file, so that the
// tables answer exactly what a reader of the file answers for any address.
// mmdb-lib's Reader gives the metadata and decodes the records; the walk
// reads the node records itself (24, 28 or 32 bits).
import { Buffer } from 'node:buffer';
import type { Reader } from 'maxmind';

export interface MmdbLeaf {
  /** the leaf's first address, as four 32-bit words (IPv4: word 0 only) */
  start: Uint32Array;
  depth: number;
  /** a data pointer (> node count), or the node count itself: no record */
  pointer: number;
  /** set when the leaf is an IPv6 alias of the IPv4 subtree (the node it reached) */
  alias: boolean;
}

interface ReaderShape {
  db: Buffer;
  ipv4StartNodeNumber: number;
  metadata: Reader<object>['metadata'];
}

function childReader(db: Buffer, recordSize: number): (node: number, right: number) => number {
  const nodeBytes = recordSize / 4;
  if (recordSize === 24) {
    return (node, right) => {
      const o = node * nodeBytes + right * 3;
      return (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!;
    };
  }
  if (recordSize === 28) {
    return (node, right) => {
      const o = node * nodeBytes;
      const middle = db[o + 3]!;
      return right
        ? ((middle & 0x0f) << 24) | (db[o + 4]! << 16) | (db[o + 5]! << 8) | db[o + 6]!
        : ((middle & 0xf0) << 20) | (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!;
    };
  }
  if (recordSize === 32) return (node, right) => db.readUInt32BE(node * nodeBytes + right * 4);
  throw new Error(`unsupported MMDB record size ${recordSize}`);
}

/**
 * Calls `onLeaf` for every leaf of one family, in ascending address order:
 * IPv4 from the tree's IPv4 start node over 32 bits, IPv6 from the root over
 * 128. In an IPv6 tree, reaching the IPv4 start node from the root (at ::/96,
 * or through MaxMind's aliases) ends the IPv6 walk there with an alias leaf.
 * The `start` array is reused between calls: copy what you keep.
 */
export function walkMmdb(
  reader: Reader<object>,
  family: 4 | 6,
  onLeaf: (leaf: MmdbLeaf) => void,
): void {
  const r = reader as unknown as ReaderShape;
  const { nodeCount, recordSize, ipVersion } = reader.metadata;
  const child = childReader(r.db, recordSize);
  const bits = family === 4 ? 32 : 128;
  const ipv4Start = ipVersion === 4 ? 0 : r.ipv4StartNodeNumber;
  const aliasTarget = family === 6 && ipVersion === 6 && ipv4Start < nodeCount ? ipv4Start : -1;
  const root = family === 4 ? ipv4Start : 0;
  // depth-first, left before right: at most two entries per level wait
  const size = 2 * (bits + 2);
  const nodes = new Float64Array(size);
  const depths = new Uint8Array(size);
  const prefixes = new Uint32Array(size * 4);
  const leaf: MmdbLeaf = { start: new Uint32Array(4), depth: 0, pointer: 0, alias: false };
  let top = 0;
  nodes[0] = root;
  top = 1;
  while (top > 0) {
    top--;
    const node = nodes[top]!;
    const depth = depths[top]!;
    const at = top * 4;
    const isAlias = node === aliasTarget && depth > 0;
    if (node >= nodeCount || depth === bits || isAlias) {
      leaf.start.set(prefixes.subarray(at, at + 4));
      leaf.depth = depth;
      // a node number where a record should be (a malformed file) reads as no record, as in mmdb-lib
      leaf.pointer = isAlias || node < nodeCount ? nodeCount : node;
      leaf.alias = isAlias;
      onLeaf(leaf);
      continue;
    }
    const right = child(node, 1);
    const left = child(node, 0);
    // right first, so that left is taken next
    nodes[top] = right;
    depths[top] = depth + 1;
    // prefix of the right child: this prefix with bit `depth` set
    const word = depth >>> 5;
    prefixes[at + word] = (prefixes[at + word]! | (1 << (31 - (depth & 31)))) >>> 0;
    const next = top + 1;
    nodes[next] = left;
    depths[next] = depth + 1;
    prefixes.copyWithin(next * 4, at, at + 4);
    prefixes[next * 4 + word] = (prefixes[next * 4 + word]! & ~(1 << (31 - (depth & 31)))) >>> 0;
    top = next + 1;
  }
}
