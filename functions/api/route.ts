import type { z } from "zod";
import type { ErrorCode, ParticipantScope, Scope } from "./contract.ts";
import type { CallOutcome } from "./db.ts";
import type { KeptRead } from "./kept.ts";
import type { LiveHub } from "./stream.ts";

export type { Scope } from "./contract.ts";

/** What the function lends a route's own steps. */
export interface RouteEnv {
  hub: LiveHub;
  /** Reads a file shipped with the function (the PNG pictures' fonts). */
  readFile?: (url: URL) => Promise<Uint8Array>;
  /** The key sealing webhook secrets (503 when it is not configured). */
  webhookKey: () => Promise<CryptoKey>;
}

/** A call as a route's `answer` and `data` see it: its request and arguments, the database's outcome, the headers so far. */
export interface RouteCall {
  req: Request;
  args: Record<string, unknown>;
  outcome: CallOutcome;
  headers: Headers;
  /** The answer this instance kept for this read (the route's `kept`), taken before the database was asked. */
  kept: KeptRead | null;
  env: RouteEnv;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One API route: what it accepts, the scope it needs and the SQL operation that serves it. */
export interface Route {
  method: Method;
  /** Path below /api/v1, with `{name}` UUID parameters. */
  path: string;
  /** The scope the route needs; null: any valid key (GET /me). */
  scope: Scope | ParticipantScope | null;
  /** A participant token's route (contract section 17, `tpt_`), not an API key's. */
  participant?: boolean;
  /** The operation name: a row of app.operation, which api.call dispatches on (supabase/schemas/25_api.sql). */
  op: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The result is `{data, pagination}` rather than the data itself. */
  paginated?: boolean;
  /** 202: the route queues work (a webhook delivery) rather than completing it. */
  accepted?: boolean;
  /** A live stream (text/event-stream): the operation opens it, `answer` serves its events. */
  stream?: boolean;
  /** A bracket picture (contract section 15): the operation reads the public view, `answer` draws it. */
  picture?: "svg" | "png";
  /** Before the call: what the operation needs that the function makes (a new webhook secret, sealed). */
  prepare?: (args: Record<string, unknown>, env: RouteEnv) => Promise<void>;
  /** A read whose whole answer an instance keeps by version (kept.ts): the name it is kept under, or null. */
  kept?: (args: Record<string, unknown>) => string | null;
  /** The answer, when it is not the envelope around the result (a stream, a picture). */
  answer?: (call: RouteCall) => Promise<Response> | Response;
  /** The result made into `data` (a kept result sent again, a webhook secret shown, GET /me's rate limit). */
  data?: (result: string, call: RouteCall) => Promise<string> | string;
  /** For creating routes (201): the new resource's path below /api/v1. */
  // deno-lint-ignore no-explicit-any
  location?: (data: any) => string;
  summary: string;
  /** Longer documentation for the OpenAPI document. */
  description?: string;
  /** The schema of `data` in a success response. */
  response: z.ZodType;
  /** The 409 codes this route can answer. */
  conflicts?: ErrorCode[];
  /** An example request body. */
  bodyExample?: Record<string, unknown>;
}

interface Compiled {
  route: Route;
  pattern: RegExp;
  params: string[];
}

/** Finds the route for a method and path, telling an unknown path from a wrong method. */
export class Router {
  private compiled: Compiled[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => {
      const params: string[] = [];
      const source = route.path.replace(/\{(\w+)\}/g, (_, name) => {
        params.push(name);
        return "([^/]+)";
      });
      return { route, pattern: new RegExp(`^${source}$`), params };
    });
  }

  /** The route and its raw path parameters; or the methods the path allows; or nothing. */
  match(method: string, path: string):
    | { route: Route; params: Record<string, string> }
    | { allow: string[] }
    | null {
    const allow: string[] = [];
    // HEAD is GET without a body (RFC 9110 9.3.2): it matches the GET route of a path.
    const wanted = method === "HEAD" ? "GET" : method;
    for (const c of this.compiled) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      if (c.route.method !== wanted) {
        allow.push(c.route.method);
        if (c.route.method === "GET") allow.push("HEAD");
        continue;
      }
      const params: Record<string, string> = {};
      c.params.forEach((name, i) => (params[name] = safeDecode(m[i + 1])));
      return { route: c.route, params };
    }
    return allow.length ? { allow } : null;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes: left as they are, so the id simply matches nothing
  }
}
