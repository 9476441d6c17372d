/**
 * Deterministic randomness: everything the generator makes comes from the seed through these
 * functions, so the same seed gives the same organisation byte for byte.
 */

/** 32-bit integer hash (murmur3 finaliser over a running mix); fast and well spread. */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

export function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  uint32(): number;
}

/** sfc32: small, fast, good enough for demo data, and identical on every platform. */
export function createRandom(seed: number, stream = 0): Random {
  let a = hash32(seed, stream, 1);
  let b = hash32(seed, stream, 2);
  let c = hash32(seed, stream, 3);
  let d = 1;
  const uint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) uint32();
  const next = (): number => uint32() / 4294967296;
  return {
    next,
    uint32,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (probability) => next() < probability,
  };
}

const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Eight hex digits by table lookup: ids are formatted millions of times for the free-text index. */
const hex8 = (value: number): string =>
  (BYTE_HEX[(value >>> 24) & 0xff] as string) +
  BYTE_HEX[(value >>> 16) & 0xff] +
  BYTE_HEX[(value >>> 8) & 0xff] +
  BYTE_HEX[value & 0xff];

/**
 * A UUID (version 4 shape) derived from the seed, a namespace number and an index: stable
 * ids for every generated record without storing them.
 */
export function uuidFor(seed: number, namespace: number, index: number): string {
  const a = hash32(seed, namespace, index, 1);
  const b = hash32(seed, namespace, index, 2);
  const c = hash32(seed, namespace, index, 3);
  const d = hash32(seed, namespace, index, 4);
  return formatUuid(a, b, c, d);
}

export function formatUuid(a: number, b: number, c: number, d: number): string {
  const hb = hex8(b);
  const hc = hex8(c);
  const variant = (8 + (c >>> 30)).toString(16);
  return `${hex8(a)}-${hb.slice(0, 4)}-4${hb.slice(5, 8)}-${variant}${hc.slice(1, 4)}-${hc.slice(4)}${hex8(d)}`;
}

const HEX_CODES = Uint8Array.from('0123456789abcdef', (ch) => ch.charCodeAt(0));
const DASH = 45;

/** Writes 8 hex digits of `value` at `at`. Straight-line: it runs millions of times. */
function word(out: Uint8Array, at: number, value: number): void {
  for (let k = 0; k < 8; k++) out[at + k] = HEX_CODES[(value >>> (28 - 4 * k)) & 15]!;
}

/** Writes the 36 ASCII bytes of `formatUuid(a, b, c, d)` at `offset`: the free-text index is built from bytes, not strings. */
export function writeUuid(out: Uint8Array, offset: number, a: number, b: number, c: number, d: number): void {
  word(out, offset, a);
  out[offset + 8] = DASH;
  word(out, offset + 9, b); // digits 0-3 of b at 9..12; 4-7 land on 13..16 and are overwritten below
  out[offset + 13] = DASH;
  out[offset + 14] = 52; // '4': version nibble
  out[offset + 15] = HEX_CODES[(b >>> 8) & 15]!;
  out[offset + 16] = HEX_CODES[(b >>> 4) & 15]!;
  out[offset + 17] = HEX_CODES[b & 15]!;
  out[offset + 18] = DASH;
  word(out, offset + 19, c); // digit 0 replaced by the variant; digits 4-7 are then at 23..26
  out[offset + 19] = HEX_CODES[8 + (c >>> 30)]!;
  out[offset + 23] = DASH;
  out[offset + 24] = HEX_CODES[(c >>> 12) & 15]!;
  out[offset + 25] = HEX_CODES[(c >>> 8) & 15]!;
  out[offset + 26] = HEX_CODES[(c >>> 4) & 15]!;
  out[offset + 27] = HEX_CODES[c & 15]!;
  word(out, offset + 28, d);
}

/** Bytes of `uuidFor(seed, namespace, index)`. */
export function writeUuidFor(
  out: Uint8Array,
  offset: number,
  seed: number,
  namespace: number,
  index: number,
): void {
  writeUuid(
    out,
    offset,
    hash32(seed, namespace, index, 1),
    hash32(seed, namespace, index, 2),
    hash32(seed, namespace, index, 3),
    hash32(seed, namespace, index, 4),
  );
}
