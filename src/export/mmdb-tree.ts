// The search tree and the file of a MaxMind DB (MaxMind DB File Format
// Specification 2.0, "Search Tree Section", "Data Section Separator",
// "Database Metadata"), written from gapless address intervals rather than
// from inserted networks: the whole IPv6 space is cut into intervals sorted
// by start (128-bit starts as four 32-bit words), each holding one data
// offset, no data, or the IPv4 alias. A prefix that one interval covers whole
// is a leaf; any other is a node with two halves. Nodes are numbered in the
// order they are made (depth first), the root first.
//
// IPv4 lives at ::/96 as in MaxMind's own files: the IPv4 intervals are the
// intervals of ::0.0.0.0–::255.255.255.255, and the interval that is exactly
// ::ffff:0:0/96 holds ALIAS_TO_IPV4, so that the tree points that prefix at
// the ::/96 subtree and an IPv4-mapped address answers what the IPv4 address
// does (MaxMind's writer makes the same alias).
import { Buffer } from 'node:buffer';
import { GrowableU32 } from '../data/range-table-builder.js';
import { encodeStandalone, MmdbUint, type MmdbValue } from './mmdb-data.js';

/** the interval holds no data: readers answer "not found" */
export const NO_DATA = 0xffffffff;
/** the interval is ::ffff:0:0/96: the tree points it at the IPv4 subtree */
export const ALIAS_TO_IPV4 = 0xfffffffe;

/** A child while building: a node id, DATA_BIT | offset, or NO_DATA. */
const DATA_BIT = 0x80000000;

export interface MmdbIntervals {
  /** starts as four words each, ascending, the first 0 */
  starts: Uint32Array;
  /** per interval: a data-section offset, NO_DATA or ALIAS_TO_IPV4 */
  values: Uint32Array;
}

export interface MmdbMetadata {
  databaseType: string;
  languages: readonly string[];
  description: Readonly<Record<string, string>>;
  /** seconds since the epoch */
  buildEpoch: number;
}

/** "\xAB\xCD\xEFMaxMind.com": the metadata follows the last one in the file */
const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

class TreeBuilder {
  readonly left: GrowableU32;
  readonly right: GrowableU32;
  private cursor = 0;
  /** the child value of ::/96 (the IPv4 subtree), once built */
  private ipv4 = -1;
  private readonly count: number;

  constructor(private readonly tree: MmdbIntervals) {
    this.count = tree.values.length;
    // about two nodes an interval (1.8 to 2.8 in an export with every fixture
    // feed): room for two at once, rather than doubling from 1,024
    this.left = new GrowableU32(2 * this.count);
    this.right = new GrowableU32(2 * this.count);
  }

  /** The child value for the prefix of `depth` bits starting at (w0 w1 w2 w3). */
  visit(depth: number, w0: number, w1: number, w2: number, w3: number): number {
    const { starts, values } = this.tree;
    while (this.cursor + 1 < this.count && atMost(starts, this.cursor + 1, w0, w1, w2, w3)) {
      this.cursor++;
    }
    const next = this.cursor + 1;
    if (depth > 0 && (next === this.count || !inPrefix(starts, next, depth, w0, w1, w2, w3))) {
      return this.leaf(values[this.cursor]!);
    }
    const id = this.left.length;
    this.left.push(0);
    this.right.push(0);
    const word = depth >>> 5;
    const bit = 1 << (31 - (depth & 31));
    this.left.set(id, this.visit(depth + 1, w0, w1, w2, w3));
    // the right half: the prefix with its next bit set (no closure per node: millions of nodes)
    this.right.set(
      id,
      this.visit(
        depth + 1,
        word === 0 ? (w0 | bit) >>> 0 : w0,
        word === 1 ? (w1 | bit) >>> 0 : w1,
        word === 2 ? (w2 | bit) >>> 0 : w2,
        word === 3 ? (w3 | bit) >>> 0 : w3,
      ),
    );
    if (depth === 96 && w0 === 0 && w1 === 0 && w2 === 0) this.ipv4 = id;
    return id;
  }

  private leaf(value: number): number {
    if (value === NO_DATA) return NO_DATA;
    if (value === ALIAS_TO_IPV4) {
      if (this.ipv4 < 0) throw new Error('the IPv4 alias comes before the IPv4 subtree');
      return this.ipv4;
    }
    return (DATA_BIT | value) >>> 0;
  }
}

/** starts[i] ≤ (w0 w1 w2 w3) */
function atMost(s: Uint32Array, i: number, w0: number, w1: number, w2: number, w3: number) {
  const at = 4 * i;
  if (s[at] !== w0) return s[at]! < w0;
  if (s[at + 1] !== w1) return s[at + 1]! < w1;
  if (s[at + 2] !== w2) return s[at + 2]! < w2;
  return s[at + 3]! <= w3;
}

/** starts[i] begins with the first `depth` bits of (w0 w1 w2 w3) */
function inPrefix(
  s: Uint32Array,
  i: number,
  depth: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): boolean {
  const at = 4 * i;
  return (
    sameTop(s[at]!, w0, depth) &&
    sameTop(s[at + 1]!, w1, depth - 32) &&
    sameTop(s[at + 2]!, w2, depth - 64) &&
    sameTop(s[at + 3]!, w3, depth - 96)
  );
}

/** The first `bits` bits of two words agree (all of them from 32 on, none from 0 down). */
function sameTop(a: number, b: number, bits: number): boolean {
  if (bits <= 0) return true;
  if (bits >= 32) return a === b;
  return (a ^ b) >>> (32 - bits) === 0;
}

export interface MmdbTree {
  nodeCount: number;
  recordSize: 24 | 28 | 32;
  bytes: Buffer;
}

/**
 * The search tree section for intervals whose data section is `dataBytes`
 * long, in the smallest record size that holds its pointers (or a larger one
 * asked for: the tests read every size).
 */
export function buildTree(
  intervals: MmdbIntervals,
  dataBytes: number,
  atLeast: 24 | 28 | 32 = 24,
): MmdbTree {
  const builder = new TreeBuilder(intervals);
  builder.visit(0, 0, 0, 0, 0);
  const nodeCount = builder.left.length;
  const largest = nodeCount + 16 + dataBytes;
  const recordSize = Math.max(atLeast, largest < 2 ** 24 ? 24 : largest < 2 ** 28 ? 28 : 32) as
    24 | 28 | 32;
  if (largest >= 2 ** 32) throw new Error('the database is too large for 32-bit records');
  const nodeBytes = recordSize / 4;
  const bytes = Buffer.alloc(nodeCount * nodeBytes);
  const record = (child: number): number =>
    child === NO_DATA ? nodeCount : child >= DATA_BIT ? nodeCount + 16 + (child - DATA_BIT) : child;
  for (let i = 0; i < nodeCount; i++) {
    const l = record(builder.left.at(i));
    const r = record(builder.right.at(i));
    const o = i * nodeBytes;
    if (recordSize === 24) {
      // byte by byte: writeUIntBE's checks cost a second over millions of nodes
      bytes[o] = l >>> 16;
      bytes[o + 1] = (l >>> 8) & 0xff;
      bytes[o + 2] = l & 0xff;
      bytes[o + 3] = r >>> 16;
      bytes[o + 4] = (r >>> 8) & 0xff;
      bytes[o + 5] = r & 0xff;
    } else if (recordSize === 28) {
      // the middle byte: the left record's top four bits, then the right's
      bytes[o] = (l >>> 16) & 0xff;
      bytes[o + 1] = (l >>> 8) & 0xff;
      bytes[o + 2] = l & 0xff;
      bytes[o + 3] = ((l >>> 24) << 4) | (r >>> 24);
      bytes[o + 4] = (r >>> 16) & 0xff;
      bytes[o + 5] = (r >>> 8) & 0xff;
      bytes[o + 6] = r & 0xff;
    } else {
      bytes.writeUInt32BE(l, o);
      bytes.writeUInt32BE(r, o + 4);
    }
  }
  return { nodeCount, recordSize, bytes };
}

/** The pieces of the file in order: tree, 16 zero bytes, data section, marker, metadata. */
export function mmdbFileParts(tree: MmdbTree, data: Buffer, meta: MmdbMetadata): Buffer[] {
  const metadata: MmdbValue = {
    binary_format_major_version: new MmdbUint(16, 2),
    binary_format_minor_version: new MmdbUint(16, 0),
    build_epoch: new MmdbUint(64, BigInt(meta.buildEpoch)),
    database_type: meta.databaseType,
    description: { ...meta.description },
    ip_version: new MmdbUint(16, 6),
    languages: [...meta.languages],
    node_count: new MmdbUint(32, tree.nodeCount),
    record_size: new MmdbUint(16, tree.recordSize),
  };
  return [tree.bytes, Buffer.alloc(16), data, METADATA_MARKER, encodeStandalone(metadata)];
}
