// SHA-256 through node:crypto (synchronous; Deno implements it natively). The key check hashes
// a 53-byte key on every request, and WebCrypto's digest is asynchronous.
import { createHash } from "node:crypto";

/** The SHA-256 digest of `data`. */
export function sha256(data: Uint8Array | string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/** Lower-case hex of bytes. */
export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
