// The data section of a MaxMind DB file (MaxMind DB File Format
// Specification 2.0, "Output Data Section"): each value a control byte (type
// in the top three bits, 0 for the extended types, size in the low five, with
// 1–3 more size bytes past 28) and its payload. Values met before are written
// as pointers to their first copy ("Pointer - 1"), so a record shares its map
// keys, country names and time zones with every record written before it,
// as MaxMind's own writer does; whole records are written once each and the
// tree points at them.
import { Buffer } from 'node:buffer';

/** A value of the data section: plain JS values, with integers and doubles told apart. */
export type MmdbValue =
  | string
  | boolean
  | MmdbUint
  | MmdbDouble
  | readonly MmdbValue[]
  | { readonly [key: string]: MmdbValue };

/** An unsigned integer of an explicit width (the spec's uint16/uint32/uint64). */
export class MmdbUint {
  constructor(
    readonly bits: 16 | 32 | 64,
    readonly value: number | bigint,
  ) {}
}

/** A 64-bit IEEE 754 double. */
export class MmdbDouble {
  constructor(readonly value: number) {}
}

// type numbers of the spec; > 7 are "extended" (a second byte holds type - 7)
const POINTER = 1;
const STRING = 2;
const DOUBLE = 3;
const UINT16 = 5;
const UINT32 = 6;
const MAP = 7;
const UINT64 = 9;
const ARRAY = 11;
const BOOLEAN = 14;

/** Values this short are written again rather than pointed at (a pointer takes 2–5 bytes). */
const MIN_SHARED_BYTES = 3;

export class MmdbDataWriter {
  private bytes = Buffer.allocUnsafe(1 << 20);
  private size = 0;
  /** a value's canonical key → the offset of its first copy, for pointers */
  private readonly seen = new Map<string, number>();

  /** `share` false: no pointers (the metadata map, which lives outside the section) */
  constructor(private readonly share = true) {}

  /** Bytes written so far (the data section's length). */
  get length(): number {
    return this.size;
  }

  /** The section's bytes (a view: copy before writing more). */
  contents(): Buffer {
    return this.bytes.subarray(0, this.size);
  }

  /**
   * Writes a value (a whole record) and returns its offset in the section;
   * a value written before returns its first offset, nothing written (when
   * it is one that is shared: see keysOf).
   */
  write(value: MmdbValue): number {
    if (typeof value === 'string' && this.share) {
      // a whole record that is a string: its first copy, never a pointer to it
      const first = this.seenStrings.get(value);
      if (first !== undefined) return first;
      const at = this.size;
      this.inline(value);
      this.seenStrings.set(value, at);
      return at;
    }
    const key = this.share ? keysOf(value, this.keys, this.frozenKeys) : null;
    const found = key === null ? undefined : this.seen.get(key);
    if (found !== undefined) {
      this.keys.clear();
      return found;
    }
    const at = this.size;
    this.put(value, key);
    this.keys.clear();
    return at;
  }

  /**
   * A map that many records share all members of but one (a place, for each
   * of its locations): the shared members are written now, once, and
   * writeWith() repeats only pointers to them and the one member's value.
   */
  template(shared: { readonly [key: string]: MmdbValue }, varying: string): MapTemplate {
    const pointers: number[] = [];
    let size = 0;
    const names = Object.keys(shared);
    for (const name of names) {
      pointers.push(this.sharedOffset(name), this.sharedOffset(shared[name]!));
    }
    const bytes = Buffer.allocUnsafe(5 * pointers.length);
    for (const offset of pointers) size = writePointer(bytes, size, offset);
    return { count: names.length, shared: bytes.subarray(0, size), varying };
  }

  /**
   * The offset of a template member's copy, kept by identity for the names
   * and frozen values (which cannot change): 195,000 places' templates
   * repeat a few thousand of them, whose keys need not be made again.
   */
  private sharedOffset(value: MmdbValue): number {
    let at = this.sharedOffsets.get(value);
    if (at === undefined) {
      at = this.write(value);
      if (typeof value === 'string' || Object.isFrozen(value)) this.sharedOffsets.set(value, at);
    }
    return at;
  }

  private readonly sharedOffsets = new Map<MmdbValue, number>();

  /** A record of `template`'s members and its varying one (null: left out); returns its offset. */
  writeWith(template: MapTemplate, value: MmdbValue | null): number {
    const at = this.size;
    this.control(MAP, template.count + (value === null ? 0 : 1));
    this.room(template.shared.length);
    this.size += template.shared.copy(this.bytes, this.size);
    if (value !== null) {
      this.putString(template.varying);
      this.put(value, this.keyOf(value));
      this.keys.clear();
    }
    return at;
  }

  /** the keys of the nested values of the value being written (null: not shared) */
  private readonly keys = new Map<object, string | null>();
  /**
   * the keys of frozen values, kept across writes: a frozen value cannot
   * change, and the records reuse theirs (a country, a city's names) for
   * every place, so its key is made once, not once per record
   */
  private readonly frozenKeys = new Map<object, string | null>();

  /** a nested value's key (strings need none: putString keys them by themselves) */
  private keyOf(value: MmdbValue): string | null {
    if (typeof value === 'string') return null;
    if (typeof value === 'object' && !(value instanceof MmdbUint || value instanceof MmdbDouble)) {
      // made by keysOf with its container's: this write's, or a frozen value's of any write
      const key = this.keys.get(value);
      if (key !== undefined) return key;
      const frozenKey = this.frozenKeys.get(value);
      if (frozenKey !== undefined) return frozenKey;
    }
    return keysOf(value, this.keys, this.frozenKeys);
  }

  private put(value: MmdbValue, key: string | null): void {
    if (typeof value === 'string' && this.share) {
      this.putString(value);
      return;
    }
    if (!this.share || key === null) {
      this.inline(value);
      return;
    }
    const found = this.seen.get(key);
    if (found !== undefined && this.pointerBytes(found) < this.encodedBytesAtLeast(value)) {
      this.pointer(found);
      return;
    }
    const at = this.size;
    this.inline(value);
    if (this.size - at >= MIN_SHARED_BYTES && found === undefined) this.seen.set(key, at);
  }

  /** a string → the offset of its first copy: keyed by the string itself (no key text made) */
  private readonly seenStrings = new Map<string, number>();

  private putString(value: string): void {
    const found = this.seenStrings.get(value);
    if (found !== undefined && this.pointerBytes(found) < this.encodedBytesAtLeast(value)) {
      this.pointer(found);
      return;
    }
    const at = this.size;
    this.inline(value);
    if (this.size - at >= MIN_SHARED_BYTES && found === undefined) this.seenStrings.set(value, at);
  }

  private inline(value: MmdbValue): void {
    if (typeof value === 'string') {
      const length = Buffer.byteLength(value, 'utf8');
      this.control(STRING, length);
      this.room(length);
      this.size += this.bytes.write(value, this.size, 'utf8');
    } else if (typeof value === 'boolean') {
      this.control(BOOLEAN, value ? 1 : 0);
    } else if (value instanceof MmdbUint) {
      this.uint(value);
    } else if (value instanceof MmdbDouble) {
      this.control(DOUBLE, 8);
      this.room(8);
      this.size = this.bytes.writeDoubleBE(value.value, this.size);
    } else if (Array.isArray(value)) {
      const items = value as readonly MmdbValue[];
      this.control(ARRAY, items.length);
      for (const item of items) this.put(item, this.share ? this.keyOf(item) : null);
    } else {
      const entries = Object.entries(value as { readonly [key: string]: MmdbValue });
      this.control(MAP, entries.length);
      for (const [k, v] of entries) {
        this.put(k, null); // a string: putString
        this.put(v, this.share ? this.keyOf(v) : null);
      }
    }
  }

  private uint(value: MmdbUint): void {
    let n = BigInt(value.value);
    if (n < 0n || n >= 1n << BigInt(value.bits)) {
      throw new RangeError(`${n} does not fit a uint${value.bits}`);
    }
    const payload: number[] = [];
    while (n > 0n) {
      payload.unshift(Number(n & 0xffn));
      n >>= 8n;
    }
    this.control(value.bits === 16 ? UINT16 : value.bits === 32 ? UINT32 : UINT64, payload.length);
    this.room(payload.length);
    for (const b of payload) this.bytes[this.size++] = b;
  }

  /** A lower bound of a value's inline size: its control byte plus its payload, for strings. */
  private encodedBytesAtLeast(value: MmdbValue): number {
    return typeof value === 'string' ? 1 + Buffer.byteLength(value, 'utf8') : MIN_SHARED_BYTES + 2;
  }

  private pointerBytes(offset: number): number {
    return offset < POINTER_2 ? 2 : offset < POINTER_3 ? 3 : offset < POINTER_4 ? 4 : 5;
  }

  private pointer(offset: number): void {
    this.room(5);
    this.size = writePointer(this.bytes, this.size, offset);
  }

  /** The control byte(s) of a value of `type` and `size` ("Data Field Format"). */
  private control(type: number, size: number): void {
    this.room(6);
    const b = this.bytes;
    const first = (type > 7 ? 0 : type) << 5;
    const extended = type > 7 ? [type - 7] : [];
    if (size < 29) {
      b[this.size++] = first | size;
      for (const e of extended) b[this.size++] = e;
    } else if (size < 285) {
      b[this.size++] = first | 29;
      for (const e of extended) b[this.size++] = e;
      b[this.size++] = size - 29;
    } else if (size < 65_821) {
      const v = size - 285;
      b[this.size++] = first | 30;
      for (const e of extended) b[this.size++] = e;
      b[this.size++] = v >>> 8;
      b[this.size++] = v & 0xff;
    } else {
      const v = size - 65_821;
      b[this.size++] = first | 31;
      for (const e of extended) b[this.size++] = e;
      b[this.size++] = (v >>> 16) & 0xff;
      b[this.size++] = (v >>> 8) & 0xff;
      b[this.size++] = v & 0xff;
    }
  }

  private room(more: number): void {
    if (this.size + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, this.size + more));
    this.bytes.copy(grown, 0, 0, this.size);
    this.bytes = grown;
  }
}

/** A map's shared members as pointers (MmdbDataWriter.template). */
export interface MapTemplate {
  /** how many members the pointers stand for */
  readonly count: number;
  /** each shared member's name and value, as pointers to their copies */
  readonly shared: Buffer;
  /** the member each record gives a value of its own */
  readonly varying: string;
}

/** the offsets a 2-, 3- and 4-byte pointer reach (each larger form biased by the one before) */
const POINTER_2 = 2048;
const POINTER_3 = POINTER_2 + (1 << 19);
const POINTER_4 = POINTER_3 + 2 ** 27;

/** "Pointer - 1" at `at`: SS selects 11, 19, 27 or 32 bits; the larger forms are biased. */
function writePointer(b: Buffer, at: number, offset: number): number {
  if (offset < POINTER_2) {
    b[at++] = (POINTER << 5) | (offset >>> 8);
    b[at++] = offset & 0xff;
  } else if (offset < POINTER_3) {
    const v = offset - POINTER_2;
    b[at++] = (POINTER << 5) | (1 << 3) | (v >>> 16);
    b[at++] = (v >>> 8) & 0xff;
    b[at++] = v & 0xff;
  } else if (offset < POINTER_4) {
    const v = offset - POINTER_3;
    b[at++] = (POINTER << 5) | (2 << 3) | (v >>> 24);
    b[at++] = (v >>> 16) & 0xff;
    b[at++] = (v >>> 8) & 0xff;
    b[at++] = v & 0xff;
  } else {
    b[at++] = (POINTER << 5) | (3 << 3);
    at = b.writeUInt32BE(offset, at);
  }
  return at;
}

/** the longest key of a shared map or array: longer ones are written where they occur */
const MAX_SHARED_KEY = 160;

/**
 * One text per distinct value, its kind included (the string "1" is not the
 * uint 1), made bottom-up once per value of a record: each part says its own
 * length or ends with `;`, so the texts of two different values never agree.
 * (JSON.stringify of every nested value again at each level cost a third of
 * the export's time.) Null: the value is not shared — a map or array whose
 * key would be long, or that holds a double (coordinates: nearly one per
 * place, so a key per location map cost memory and time and saved little;
 * the export writes each place once anyway). Strings and numbers always are.
 */
function keysOf(
  value: MmdbValue,
  keys: Map<object, string | null>,
  frozenKeys: Map<object, string | null>,
): string | null {
  if (typeof value === 'string') return `s${value.length}:${value}`;
  if (typeof value === 'boolean') return value ? 'T' : 'F';
  if (value instanceof MmdbUint) return `u${value.bits}:${String(value.value)};`;
  if (value instanceof MmdbDouble) return null;
  const frozen = Object.isFrozen(value);
  let key = frozen ? frozenKeys.get(value) : undefined;
  if (key === undefined) {
    // the members' keys first, and the container's text only when none is
    // null: a place's record holds its coordinates, so it never has one, and
    // making its text up to there was most of the cost (the members not
    // reached are keyed when they are written: keyOf)
    const items = Array.isArray(value) ? (value as readonly MmdbValue[]) : Object.values(value);
    const parts: string[] = [];
    let length = 0;
    for (const item of items) {
      const part = keysOf(item, keys, frozenKeys);
      if (part === null || (length += part.length) > MAX_SHARED_KEY) break;
      parts.push(part);
    }
    key = parts.length === items.length ? containerKey(value, parts) : null;
    (frozen ? frozenKeys : keys).set(value, key);
  }
  return key;
}

/** A container's text from its members' (null when it is too long). */
function containerKey(value: MmdbValue, parts: readonly string[]): string | null {
  let key: string;
  if (Array.isArray(value)) key = `[${parts.length};${parts.join('')}`;
  else {
    const names = Object.keys(value);
    key = `{${names.length};`;
    for (let i = 0; i < names.length; i++) key += `s${names[i]!.length}:${names[i]!}${parts[i]!}`;
  }
  return key.length > MAX_SHARED_KEY ? null : key;
}

/** Encodes one value alone, without pointers (the metadata map after the marker). */
export function encodeStandalone(value: MmdbValue): Buffer {
  const writer = new MmdbDataWriter(false);
  writer.write(value);
  return Buffer.from(writer.contents());
}
