// A tiny writer of MaxMind DB files (MMDB format 2.0,
// https://maxmind.github.io/MaxMind-DB/), independent of the reader under
// test: an IPv6 binary search tree with 24-bit records (IPv4 networks live
// under ::/96, as in MaxMind's own files), the 16-byte zero separator, a data
// section of maps/arrays/strings/uints/doubles/booleans, then the metadata
// map after "\xab\xcd\xefMaxMind.com". Enough to build City and ASN databases
// with a handful of networks for GEOIP_DB/ASN_DB tests.

// the export's own value classes (src/export/mmdb-data.ts): an unsigned
// integer of an explicit width (plain JS integers are written as uint32 here),
// and a double even when the number happens to be whole
import { MmdbDouble, MmdbUint } from '../../src/export/mmdb-data.js';

export { MmdbDouble, MmdbUint };

export type MmdbValue =
  | string
  | number
  | boolean
  | MmdbUint
  | MmdbDouble
  | readonly MmdbValue[]
  | { readonly [key: string]: MmdbValue };

export interface MmdbNetwork {
  /** "81.2.69.0/24" or "2a02:d0c0::/29" */
  network: string;
  data: { readonly [key: string]: MmdbValue };
}

export interface MmdbOptions {
  databaseType: string;
  networks: readonly MmdbNetwork[];
  languages?: readonly string[];
  description?: string;
  /** seconds since the epoch */
  buildEpoch?: number;
  /** bits per tree record (spec § "Search Tree Section"); 24 unless said */
  recordSize?: 24 | 28 | 32;
}

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

// Data types of the MMDB data section (spec § "Output Data Section")
const T = {
  string: 2,
  double: 3,
  uint16: 5,
  uint32: 6,
  map: 7,
  uint64: 9,
  array: 11,
  boolean: 14,
} as const;

/** The control byte(s): type in the top 3 bits (0 = extended), size in the low 5. */
function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const bytes: number[] = [];
  let first = (extended ? 0 : type) << 5;
  if (size < 29) {
    first |= size;
  } else if (size < 29 + 256) {
    first |= 29;
    bytes.push(size - 29);
  } else if (size < 285 + 65536) {
    const v = size - 285;
    first |= 30;
    bytes.push(v >> 8, v & 0xff);
  } else {
    const v = size - 65821;
    first |= 31;
    bytes.push((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
  }
  return Buffer.from([first, ...(extended ? [type - 7] : []), ...bytes]);
}

function encodeUint(type: number, value: number | bigint): Buffer {
  let n = BigInt(value);
  if (n < 0n) throw new RangeError(`negative uint: ${n}`);
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encodeDouble(value: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeDoubleBE(value);
  return Buffer.concat([control(T.double, 8), body]);
}

export function encodeValue(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const body = Buffer.from(value, 'utf8');
    return Buffer.concat([control(T.string, body.length), body]);
  }
  if (typeof value === 'boolean') return control(T.boolean, value ? 1 : 0);
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value < 2 ** 32
      ? encodeUint(T.uint32, value)
      : encodeDouble(value);
  }
  if (value instanceof MmdbUint) {
    return encodeUint(
      value.bits === 16 ? T.uint16 : value.bits === 32 ? T.uint32 : T.uint64,
      value.value,
    );
  }
  if (value instanceof MmdbDouble) return encodeDouble(value.value);
  if (Array.isArray(value)) {
    const items = value as readonly MmdbValue[];
    return Buffer.concat([control(T.array, items.length), ...items.map(encodeValue)]);
  }
  const entries = Object.entries(value as { readonly [key: string]: MmdbValue });
  return Buffer.concat([
    control(T.map, entries.length),
    ...entries.flatMap(([k, v]) => [encodeValue(k), encodeValue(v)]),
  ]);
}

/** An address as its bits, most significant first; IPv4 as the IPv4-compatible ::a.b.c.d. */
export function addressBits(address: string): number[] {
  let bytes: number[];
  if (address.includes(':')) {
    const [head = '', tail] = address.split('::');
    const words = (part: string | undefined): number[] =>
      part === undefined || part === '' ? [] : part.split(':').map((w) => parseInt(w, 16));
    const h = words(head);
    const t = words(tail);
    const groups =
      tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
    if (groups.length !== 8 || groups.some((g) => !(g >= 0 && g <= 0xffff))) {
      throw new Error(`bad IPv6 address: ${address}`);
    }
    bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  } else {
    const octets = address.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255))) {
      throw new Error(`bad IPv4 address: ${address}`);
    }
    bytes = [...new Array<number>(12).fill(0), ...octets];
  }
  return bytes.flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
}

interface TreeNode {
  children: [Child, Child];
}
type Child = TreeNode | { data: number } | null;

function isNode(child: Child): child is TreeNode {
  return child !== null && 'children' in child;
}

/** Inserts a network; a more specific network inside a less specific one splits it. */
function insert(root: TreeNode, network: string, data: number): void {
  const [address = '', lengthText] = network.split('/');
  const bits = addressBits(address);
  const length =
    (address.includes(':') ? 0 : 96) + Number(lengthText ?? (address.includes(':') ? 128 : 32));
  let node = root;
  for (let depth = 0; depth < length - 1; depth++) {
    const bit = bits[depth] ?? 0;
    const child = node.children[bit] ?? null;
    if (isNode(child)) {
      node = child;
      continue;
    }
    // an empty slot, or a less specific network's data pushed one level down
    const next: TreeNode = { children: [child, child] };
    node.children[bit as 0 | 1] = next;
    node = next;
  }
  node.children[(bits[length - 1] ?? 0) as 0 | 1] = { data };
}

function metadataMap(options: MmdbOptions, nodeCount: number): MmdbValue {
  return {
    node_count: new MmdbUint(32, nodeCount),
    record_size: new MmdbUint(16, options.recordSize ?? 24),
    ip_version: new MmdbUint(16, 6),
    database_type: options.databaseType,
    languages: [...(options.languages ?? ['en'])],
    binary_format_major_version: new MmdbUint(16, 2),
    binary_format_minor_version: new MmdbUint(16, 0),
    build_epoch: new MmdbUint(64, BigInt(options.buildEpoch ?? 1_700_000_000)),
    description: { en: options.description ?? `${options.databaseType} test database` },
  };
}

export function buildMmdb(options: MmdbOptions): Buffer {
  // data section: each distinct record once, pointed at from the tree
  const chunks: Buffer[] = [];
  const offsets = new Map<string, number>();
  let size = 0;
  const root: TreeNode = { children: [null, null] };
  // less specific first, so the more specific ones split them
  const ordered = [...options.networks].sort(
    (a, b) =>
      Number(a.network.split('/')[1] ?? 128) +
      (a.network.includes(':') ? 0 : 96) -
      (Number(b.network.split('/')[1] ?? 128) + (b.network.includes(':') ? 0 : 96)),
  );
  for (const { network, data } of ordered) {
    const encoded = encodeValue(data);
    const key = encoded.toString('hex');
    let offset = offsets.get(key);
    if (offset === undefined) {
      offset = size;
      offsets.set(key, offset);
      chunks.push(encoded);
      size += encoded.length;
    }
    insert(root, network, offset);
  }
  // number the nodes breadth first
  const nodes: TreeNode[] = [];
  const index = new Map<TreeNode, number>();
  const queue: TreeNode[] = [root];
  while (queue.length > 0) {
    const node = queue.shift() as TreeNode;
    index.set(node, nodes.length);
    nodes.push(node);
    for (const child of node.children) if (isNode(child)) queue.push(child);
  }
  const nodeCount = nodes.length;
  const record = (child: Child): number => {
    if (child === null) return nodeCount;
    if (isNode(child)) return index.get(child) ?? nodeCount;
    return nodeCount + 16 + child.data;
  };
  const recordSize = options.recordSize ?? 24;
  const nodeBytes = recordSize / 4;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  nodes.forEach((node, i) => {
    const [left, right] = node.children.map(record) as [number, number];
    if (left >= 2 ** recordSize || right >= 2 ** recordSize)
      throw new Error(`tree too large for ${recordSize}-bit records`);
    const o = i * nodeBytes;
    if (recordSize === 24) {
      tree.writeUIntBE(left, o, 3);
      tree.writeUIntBE(right, o + 3, 3);
    } else if (recordSize === 28) {
      // the middle byte holds the top four bits of each record: left's high, right's low
      tree.writeUIntBE(left & 0xffffff, o, 3);
      tree[o + 3] = ((left >>> 24) << 4) | (right >>> 24);
      tree.writeUIntBE(right & 0xffffff, o + 4, 3);
    } else {
      tree.writeUInt32BE(left, o);
      tree.writeUInt32BE(right, o + 4);
    }
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    ...chunks,
    METADATA_MARKER,
    encodeValue(metadataMap(options, nodeCount)),
  ]);
}

/** A GeoLite2-City style record. */
export function cityRecord(fields: {
  country?: string;
  city?: string;
  region?: string;
  latitude?: number;
  longitude?: number;
  timeZone?: string;
}): { [key: string]: MmdbValue } {
  const record: { [key: string]: MmdbValue } = {};
  if (fields.country !== undefined) {
    record['country'] = { iso_code: fields.country, names: { en: `Country ${fields.country}` } };
  }
  if (fields.city !== undefined)
    record['city'] = { geoname_id: 1, names: { en: fields.city, de: `${fields.city} (de)` } };
  if (fields.region !== undefined) {
    record['subdivisions'] = [{ iso_code: 'XX', names: { en: fields.region } }];
  }
  const location: { [key: string]: MmdbValue } = { accuracy_radius: 100 };
  if (fields.latitude !== undefined) location['latitude'] = new MmdbDouble(fields.latitude);
  if (fields.longitude !== undefined) location['longitude'] = new MmdbDouble(fields.longitude);
  if (fields.timeZone !== undefined) location['time_zone'] = fields.timeZone;
  record['location'] = location;
  return record;
}
