/**
 * API key format: `tmk_` + 43 base62 characters (32 random bytes) + a 6-character base62
 * CRC32 of everything before it; a participant token (contract section 17) is the same after
 * `tpt_`. The checksum lets a mistyped or made-up key be refused without a database lookup, and
 * lets secret scanners recognise leaked keys offline.
 */
import { sha256 } from "./sha256.ts";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = /^(tmk|tpt)_[0-9A-Za-z]{43}[0-9A-Za-z]{6}$/;

/** What a credential starts with: an API key's, a participant token's. */
export type KeyPrefix = "tmk_" | "tpt_";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC32 (IEEE) of the bytes. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Base62 of a non-negative integer, left-padded with '0' to `width`. */
export function base62(value: number, width: number): string {
  let out = "";
  let n = value;
  while (n > 0) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(width, "0");
}

/** Whether a string has the shape of an API key (or, with `prefix`, a participant token) and its checksum matches. */
export function isWellFormedKey(key: string, prefix: KeyPrefix = "tmk_"): boolean {
  if (!KEY_PATTERN.test(key) || !key.startsWith(prefix)) return false;
  const body = key.slice(0, -6);
  return base62(crc32(new TextEncoder().encode(body)), 6) === key.slice(-6);
}

/** The SHA-256 of a key: what the database stores and looks keys up by. */
export function hashKey(key: string): Uint8Array {
  return sha256(key);
}

/** The key (or token, by `prefix`) from an `Authorization: Bearer <key>` header, or null when absent, malformed or of the other kind. */
export function bearerKey(header: string | null, prefix: KeyPrefix = "tmk_"): string | null {
  const match = header?.match(/^Bearer +(\S+) *$/i);
  if (!match || !isWellFormedKey(match[1], prefix)) return null;
  return match[1];
}
