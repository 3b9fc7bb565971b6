// Whole answers a function instance keeps by version: the bracket pictures it drew last and the
// whole results it read last (a 1,024-team best-of-three double elimination's are 2 MB, which
// Postgres takes ~100 ms to build). A read that may be kept asks the database with the kept
// version in If-None-Match too; while the tournament is still at that version the database
// answers from the version alone (a 304 to the instance, after the key's checks and the count),
// and the kept answer is sent again without building or drawing it. Only a cache: the version
// always comes from Postgres, so no instance serves a stale answer. Bounded (entries and bytes),
// least recently used first out; concurrent reads of one answer share one making.
import type { Conditions } from "./db.ts";

/** An answer as kept: its bytes (JSON or SVG text, or PNG) and what a picture left out. */
export interface Kept {
  body: string | Uint8Array;
  clipped: string | null;
}

/** A read that may be answered from what this instance kept. */
export interface KeptRead {
  name: string;
  /** The answer kept, taken before the database is asked (another request may replace it meanwhile). */
  cached: { version: number; kept: Kept } | undefined;
  /** The client's own conditions (If-None-Match). */
  client: Conditions | null;
  /** What the database is asked with: the client's versions and the kept one. */
  conditions: Conditions | null;
}

const MAX_KEPT = 32;
const MAX_KEPT_BYTES = 24 * 1024 * 1024;
const store = new Map<string, { version: number; kept: Kept; bytes: number }>();
const making = new Map<string, Promise<Kept>>();
let storedBytes = 0;

/** The read of `name`, with the client's conditions: what is kept of it and what to ask the database. */
export function keptRead(name: string, client: Conditions | null): KeptRead {
  const hit = store.get(name);
  if (hit) {
    store.delete(name); // the most recently used goes last: the first out is the least recently used
    store.set(name, hit);
  }
  const cached = hit && { version: hit.version, kept: hit.kept };
  // Nothing kept, or `*` (any version is a 304 already): the client's conditions as they are.
  const conditions = !cached || client?.if_none_match === null
    ? client
    : { if_none_match: [...(client?.if_none_match ?? []), cached.version] };
  return { name, cached, client, conditions };
}

/**
 * Whether the client gets a 304: the database answered from the version alone and, for a read
 * that may be kept, the version is one the client's own If-None-Match named (not only the kept one).
 */
export function clientNotModified(notModified: boolean, read: KeptRead | null, version: number | null): boolean {
  if (!notModified || !read) return notModified;
  const versions = read.client?.if_none_match;
  return versions === null || (versions !== undefined && version !== null && versions.includes(version));
}

/**
 * The answer at `version`: the kept one when the database answered from the version alone
 * (`fresh` null), else made from what it sent (`fresh`) and kept.
 */
export async function keptAnswer(
  read: KeptRead,
  version: number,
  fresh: string | null,
  make: (fresh: string) => Promise<Kept> | Kept,
): Promise<Kept> {
  if (fresh === null) {
    if (read.cached?.version === version) return read.cached.kept;
    throw new Error(`${read.name} at version ${version} is not the one kept`);
  }
  const name = `${read.name}|${version}`;
  let pending = making.get(name);
  if (!pending) {
    pending = Promise.resolve().then(() => make(fresh)).finally(() => making.delete(name));
    making.set(name, pending);
  }
  const kept = await pending;
  remember(read.name, version, kept);
  return kept;
}

/** A JSON answer at `version` (keptAnswer for text): the kept text, or `fresh` kept. */
export async function keptText(read: KeptRead, version: number, fresh: string | null): Promise<string> {
  return (await keptAnswer(read, version, fresh, (json) => ({ body: json, clipped: null }))).body as string;
}

function remember(name: string, version: number, kept: Kept): void {
  const bytes = typeof kept.body === "string" ? kept.body.length * 2 : kept.body.byteLength;
  const old = store.get(name);
  if (old) storedBytes -= old.bytes;
  store.delete(name);
  if (bytes > MAX_KEPT_BYTES / 4) return; // one huge answer would push every other out
  store.set(name, { version, kept, bytes });
  storedBytes += bytes;
  for (const [k, v] of store) {
    if (store.size <= MAX_KEPT && storedBytes <= MAX_KEPT_BYTES) break;
    store.delete(k);
    storedBytes -= v.bytes;
  }
}
