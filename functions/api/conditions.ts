// Conditional requests (contract section 14): the versions named by If-Match / If-None-Match,
// which api.call compares with the tournament's version (the ETag).
import type { Conditions } from "./db.ts";
import type { Route } from "./route.ts";

/**
 * The versions an If-Match or If-None-Match header names (RFC 9110 entity-tags, a list; our
 * ETags are "<version>"): null for `*`, undefined without the header. If-Match compares
 * strongly (a weak tag matches nothing); If-None-Match weakly.
 */
export function versionsOf(header: string | null, weak: boolean): number[] | null | undefined {
  if (header === null) return undefined;
  if (header.trim() === "*") return null;
  const versions: number[] = [];
  for (const m of header.matchAll(/\s*(W\/)?"([^"]*)"\s*(,|$)/g)) {
    if ((weak || !m[1]) && /^[1-9][0-9]{0,14}$/.test(m[2])) versions.push(Number(m[2]));
  }
  return versions;
}

/** A request's conditions: If-None-Match on reads, If-Match on writes (contract section 14); none on the stream. */
export function conditionsOf(req: Request, route: Route): Conditions | null {
  if (route.stream) return null;
  const read = req.method === "GET" || req.method === "HEAD";
  const versions = versionsOf(req.headers.get(read ? "if-none-match" : "if-match"), read);
  if (versions === undefined || req.method === "POST") return null;
  return read ? { if_none_match: versions } : { if_match: versions };
}
