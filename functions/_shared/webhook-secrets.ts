// Webhook endpoint secrets and Standard Webhooks signatures, shared by the `api` function
// (it makes and encrypts secrets) and the `webhooks` function (it decrypts them and signs).
// Web Crypto only: no package, the same on Deno and Node.
//
// A secret is `whsec_` + base64 of 32 random bytes. The database stores those bytes encrypted
// with AES-256-GCM under WEBHOOK_ENCRYPTION_KEY (base64 of 32 bytes), which the database never
// sees: version byte 1, a 12-byte random IV, then the ciphertext with its 16-byte tag.

const VERSION = 1;

/** Base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** Bytes of base64 (throws on anything else). */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** The key from WEBHOOK_ENCRYPTION_KEY; throws with a message naming the variable, never its value. */
export async function importEncryptionKey(base64: string): Promise<CryptoKey> {
  let raw: Uint8Array;
  try {
    raw = fromBase64(base64.trim());
  } catch {
    raw = new Uint8Array();
  }
  if (raw.length !== 32) throw new Error("WEBHOOK_ENCRYPTION_KEY must be the base64 of 32 bytes (openssl rand -base64 32)");
  return await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A new secret's 32 bytes. */
export function newSecret(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

/** The secret as clients see it: `whsec_` + base64. */
export function formatSecret(raw: Uint8Array): string {
  return `whsec_${toBase64(raw)}`;
}

/** The stored form of a secret (bytes), as base64. */
export async function encryptSecret(key: CryptoKey, raw: Uint8Array): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, raw as Uint8Array<ArrayBuffer>));
  const out = new Uint8Array(1 + iv.length + sealed.length);
  out[0] = VERSION;
  out.set(iv, 1);
  out.set(sealed, 1 + iv.length);
  return toBase64(out);
}

/** A secret's 32 bytes from its stored form; throws if the key is not the one it was sealed with. */
export async function decryptSecret(key: CryptoKey, stored: Uint8Array): Promise<Uint8Array> {
  if (stored[0] !== VERSION || stored.length < 1 + 12 + 16) throw new Error("unknown secret format");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: stored.subarray(1, 13) as Uint8Array<ArrayBuffer> },
    key,
    stored.subarray(13) as Uint8Array<ArrayBuffer>,
  );
  return new Uint8Array(plain);
}

/** Standard Webhooks' `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under one secret. */
export async function sign(raw: Uint8Array, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}
