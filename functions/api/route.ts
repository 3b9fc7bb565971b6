import type { z } from "zod";
import type { ErrorCode, Scope } from "./contract.ts";

export type { Scope } from "./contract.ts";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One API route: what it accepts, the scope it needs and the SQL operation that serves it. */
export interface Route {
  method: Method;
  /** Path below /api/v1, with `{name}` UUID parameters. */
  path: string;
  /** The scope the route needs; null: any valid key (GET /me). */
  scope: Scope | null;
  /** The operation name: a row of app.operation, which api.call dispatches on (supabase/schemas/22_api.sql). */
  op: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The result is `{data, pagination}` rather than the data itself. */
  paginated?: boolean;
  /** `data` gains `rate_limit`: the key's rate-limit state after this request was counted. */
  withRateLimit?: boolean;
  /** 202: the route queues work (a webhook delivery) rather than completing it. */
  accepted?: boolean;
  /** A live stream (text/event-stream): the operation opens it, the function serves its events. */
  stream?: boolean;
  /** A bracket picture (contract section 15): the operation reads the public view, the function draws it. */
  picture?: "svg" | "png";
  /** The route makes a new webhook secret: sealed before the call, shown once in `secret`. */
  newSecret?: boolean;
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
