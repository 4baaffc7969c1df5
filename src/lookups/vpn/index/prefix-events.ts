// Building PrefixIndex: every prefix becomes a start and an end event of its
// label (IPv4 events packed into doubles, IPv6 ones as four uint32 words), and
// a sweep over the sorted events (prefix-sweep.ts) yields the boundaries of the
// elementary intervals with the label set covering each.
import { parseCidr } from '../../../net/cidr-match.js';
import type { StoredFeed } from '../feeds/feed-types.js';
import type { LabelSweep } from './prefix-sweep.js';

/** The packed IPv4 events, in one preallocated array (no boxed numbers while loading). */
export class V4Keys {
  private readonly keys: Float64Array;
  private count = 0;

  constructor(room: number) {
    this.keys = new Float64Array(room);
  }

  push(key: number): void {
    this.keys[this.count++] = key;
  }

  sorted(): Float64Array {
    return this.keys.subarray(0, this.count).sort();
  }
}

export interface V6Event {
  readonly words: readonly [number, number, number, number];
  readonly label: number;
  readonly delta: 1 | -1;
}

export function addPrefix(text: string, label: number, v4Keys: V4Keys, v6Events: V6Event[]): void {
  const packed = packCanonicalV4(text);
  const cidr = packed < 0 ? parseCidr(text) : null;
  if (packed < 0 && cidr === null) throw new Error(`PrefixIndex: not a CIDR: ${text}`);
  if (packed >= 0 || cidr?.version === 4) {
    const start = packed >= 0 ? Math.floor(packed / 64) : cidr!.network[0]!;
    const length = packed >= 0 ? packed % 64 : cidr!.prefixLength;
    const end = start + 2 ** (32 - length);
    v4Keys.push(v4Event(start, label, 1));
    if (end < 2 ** 32) v4Keys.push(v4Event(end, label, -1));
    return;
  }
  const g = cidr!.network;
  const start = [0, 1, 2, 3].map((k) => g[2 * k]! * 0x10000 + g[2 * k + 1]!) as Words;
  const end = start.map((word, k) => (word | hostMask(cidr!.prefixLength, k)) >>> 0) as Words;
  v6Events.push({ words: start, label, delta: 1 });
  const after = plusOne(end);
  if (after !== null) v6Events.push({ words: after, label, delta: -1 });
}

type Words = [number, number, number, number];

/** The host bits of word k (bits 32k … 32k+31) under a prefix of `length`. */
function hostMask(length: number, k: number): number {
  const bits = Math.min(32, Math.max(0, length - 32 * k));
  return bits === 32 ? 0 : bits === 0 ? 0xffffffff : (2 ** (32 - bits) - 1) >>> 0;
}

function plusOne(words: Words): Words | null {
  const out = [...words] as Words;
  for (let k = 3; k >= 0; k--) {
    if (out[k] !== 0xffffffff) {
      out[k] = out[k]! + 1;
      return out;
    }
    out[k] = 0;
  }
  return null; // the range ends at the last address
}

/** position·2048 + label·2 + (start ? 1 : 0): exact in a double (< 2^43), sorted natively. */
function v4Event(position: number, label: number, delta: 1 | -1): number {
  return position * 2048 + label * 2 + (delta === 1 ? 1 : 0);
}

export function sweepV4(
  keys: Float64Array,
  sweep: LabelSweep,
): { starts: Uint32Array; sets: Uint32Array } {
  const starts = new Uint32Array(keys.length);
  const sets = new Uint32Array(keys.length);
  let n = 0;
  let i = 0;
  while (i < keys.length) {
    const position = Math.floor(keys[i]! / 2048);
    for (; i < keys.length && Math.floor(keys[i]! / 2048) === position; i++) {
      const low = keys[i]! % 2048;
      sweep.apply(low >>> 1, (low & 1) === 1 ? 1 : -1);
    }
    const set = sweep.settle();
    // a boundary is kept only where the set changes (adjacent equal intervals merge)
    if (n === 0 ? set !== 0 : sets[n - 1] !== set) {
      starts[n] = position;
      sets[n++] = set;
    }
  }
  return { starts: starts.slice(0, n), sets: sets.slice(0, n) };
}

function compareWords(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < 4; k++) if (a[k] !== b[k]) return a[k]! < b[k]! ? -1 : 1;
  return 0;
}

export function sweepV6(
  events: V6Event[],
  sweep: LabelSweep,
): { starts: Uint32Array; sets: Uint32Array } {
  events.sort((a, b) => compareWords(a.words, b.words));
  const starts: number[] = [];
  const sets: number[] = [];
  let i = 0;
  while (i < events.length) {
    const words = events[i]!.words;
    for (; i < events.length && compareWords(events[i]!.words, words) === 0; i++) {
      sweep.apply(events[i]!.label, events[i]!.delta);
    }
    const set = sweep.settle();
    if (changes(sets, set)) {
      starts.push(...words);
      sets.push(set);
    }
  }
  return { starts: Uint32Array.from(starts), sets: Uint32Array.from(sets) };
}

/** A boundary is kept only where the set changes (adjacent equal intervals merge). */
function changes(sets: readonly number[], set: number): boolean {
  return sets.length === 0 ? set !== 0 : sets[sets.length - 1] !== set;
}

/**
 * A canonical "a.b.c.d/n" (what parseCidr writes: decimal octets without
 * leading zeros, host bits clear) packed as start·64 + n, or -1 for any other
 * text. A character loop: stored feeds hold tens of thousands of prefixes, and
 * this runs for each on every load without allocating anything.
 */
export function packCanonicalV4(text: string): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return -1; // a leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return -1;
    } else if ((c === 46 && dots < 3) || (c === 47 && dots === 3)) {
      if (digits === 0) return -1;
      value = value * 256 + octet;
      octet = digits = 0;
      if (c === 47) break;
      dots++;
    } else {
      return -1;
    }
  }
  const length = Number(text.slice(i + 1));
  const lengthText = text.length - i - 1;
  if (i === text.length || lengthText < 1 || lengthText > 2 || !Number.isInteger(length)) return -1;
  if (length > 32 || (lengthText === 2 && text.charCodeAt(i + 1) === 48)) return -1;
  if (value % 2 ** (32 - length) !== 0) return -1;
  return value * 64 + length;
}

/**
 * Each single IPv4 address a VPN feed lists, as a number, with the provider
 * it is listed for (an aggregate's per-entry provider, else the feed's own);
 * wider prefixes and entries without a provider are skipped.
 */
export function forEachListedVpnExitV4(
  stored: readonly StoredFeed[],
  visit: (value: number, provider: string) => void,
): void {
  for (const feed of stored) {
    if (feed.kind !== 'vpn') continue;
    feed.prefixes.forEach((prefix, i) => {
      const provider = feed.providers?.[i] || feed.provider;
      const packed = packCanonicalV4(prefix);
      if (provider === undefined || packed < 0 || packed % 64 !== 32) return;
      visit((packed - 32) / 64, provider);
    });
  }
}
