// The pooled connection to Postgres as the function's role: each call is one statement (api.call,
// api.public_call, the live streams' poll and close, keep_picture), its JSON read as raw text, its
// failures mapped as db-failure.ts sorts them.
import pg from "pg";
import { type CallOutcome, type Database, type DatabaseFailure, DatabaseUnavailable, type StreamPoll } from "./db.ts";
import {
  ABORTED_STATES,
  driverCodeOf,
  failureOf,
  isUnavailable,
  NOT_DEPLOYED_STATES,
  RATE_LIMITED_STATE,
  redactor,
  SILENT_MESSAGE,
  TOKEN_GONE_STATE,
  UNAVAILABLE_MESSAGE,
} from "./db-failure.ts";

const JSON_OID = 114;
const rawJson = {
  getTypeParser: (oid: number, format?: string) =>
    oid === JSON_OID ? (value: string) => value : pg.types.getTypeParser(oid, format as "text"),
};

/** Where the pool connects and its bounds (config.ts reads them from the environment). */
export interface DatabaseOptions {
  databaseUrl: string;
  poolSize: number;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/** A pool of at most `max` connections as the function's role. */
function makePool(options: DatabaseOptions, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return pool;
}

/** A pooled connection to Postgres as the function's role; each call is one statement. */
export function connect(options: DatabaseOptions): Database {
  const pool = makePool(options, options.poolSize);
  // The live streams' poll has a connection of its own (made when the instance first streams):
  // behind a burst of requests in the pool's queue (a final's viewers all asking at once), every
  // stream's next event would wait for all of them (issue 39's rush (d): 4.6 s at p99).
  const pollPool = makePool(options, 1);

  const redact = redactor(options.databaseUrl);
  const failed = (failure: DatabaseFailure, err: unknown, message = UNAVAILABLE_MESSAGE) =>
    new DatabaseUnavailable(message, failure, driverCodeOf(err), redact((err as Error)?.message ?? String(err)));

  /** One statement on a pooled connection (of `from`), with the failures a request's call maps (503s). */
  async function query<R>(config: pg.QueryConfig, from: pg.Pool = pool): Promise<R[]> {
    let client: pg.PoolClient;
    try {
      client = await from.connect();
    } catch (err) {
      throw failed(failureOf(err) ?? (isUnavailable(err) ? "unreachable" : "other"), err);
    }
    try {
      const { rows } = await client.query(config);
      client.release();
      return rows as R[];
    } catch (err) {
      client.release(err as Error);
      if (isUnavailable(err)) throw failed(failureOf(err) ?? "dropped", err);
      const e = err as { code?: string; message?: string };
      throw new Error(`database error ${e?.code ?? "?"}: ${redact(e?.message ?? String(err))}`);
    }
  }

  type Row = {
    auth: string;
    error: string | null;
    result: string | null;
    replay: string | null;
    version: string | null;
    not_modified: boolean | null;
  };

  /** One request's statement (api.call or api.public_call) on a pooled connection, with its failures mapped. */
  async function statement(text: string, values: unknown[]): Promise<Row | { rateLimited: string }> {
    // Whatever fails before the statement is sent (refused, DNS, TLS, login, timeout) did
    // nothing: always a 503, whether or not the driver's error is one we recognise.
    let client: pg.PoolClient;
    try {
      client = await pool.connect(); // may also throw at once (a URL pg cannot parse)
    } catch (err) {
      throw failed(failureOf(err) ?? (isUnavailable(err) ? "unreachable" : "other"), err);
    }
    // As pool.query does: an error event while checked out must not crash the process, and a
    // client that failed is destroyed rather than returned to the pool.
    let released = false;
    const release = (err?: Error) => {
      if (!released) client.release(err);
      released = true;
    };
    client.once("error", release);
    try {
      const { rows } = await client.query({ text, values, types: rawJson });
      release();
      return rows[0] as Row;
    } catch (err) {
      release(err as Error);
      if (/Query read timeout/i.test((err as Error)?.message ?? "")) throw failed("query_timeout", err, SILENT_MESSAGE);
      const e = err as { code?: string; detail?: string; message?: string };
      // The window filled up while the operation ran, or the participant token went away
      // meanwhile: api.call undid it all (nothing counted); the detail is the answer's auth.
      if (e?.code === RATE_LIMITED_STATE && e.detail) return { rateLimited: e.detail };
      if (e?.code === TOKEN_GONE_STATE) return { rateLimited: JSON.stringify({ error: "unauthorized" }) };
      if (typeof e?.code === "string" && ABORTED_STATES.test(e.code)) throw failed("aborted", err);
      // The function itself is missing or not executable: the database is not (fully) migrated,
      // or DATABASE_URL names another role. Nothing ran.
      if (typeof e?.code === "string" && NOT_DEPLOYED_STATES.test(e.code)) throw failed("not_deployed", err);
      // The connection went away after the statement was sent: it may have committed.
      if (isUnavailable(err)) throw failed(failureOf(err) ?? "dropped", err, SILENT_MESSAGE);
      // Anything else is a bug: a 500, logged with the request id (never sent to the client).
      throw new Error(`database error ${e?.code ?? "?"}: ${redact(e?.message ?? String(err))}`);
    } finally {
      client.removeListener("error", release);
    }
  }

  function outcomeOf(row: Row | { rateLimited: string }): CallOutcome {
    if ("rateLimited" in row) {
      return { auth: JSON.parse(row.rateLimited), error: null, result: null, replay: null, version: null, notModified: false };
    }
    return {
      auth: JSON.parse(row.auth),
      error: row.error ? JSON.parse(row.error) : null,
      result: row.result,
      replay: row.replay ? JSON.parse(row.replay) : null,
      version: row.version === null ? null : Number(row.version),
      notModified: row.not_modified === true,
    };
  }

  return {
    async streamPoll(asks) {
      const rows = await query<{ state: StreamPoll["state"]; version: string | null; data: string | null }>({
        text: "select state, version, data from api.stream_poll($1) order by ord",
        values: [JSON.stringify(asks)],
        types: rawJson,
      }, pollPool);
      return rows.map((row) => ({ state: row.state, version: row.version === null ? null : Number(row.version), data: row.data }));
    },
    async streamClose(streamId) {
      await query({ text: "select api.stream_close($1)", values: [streamId] });
    },
    async call(keyHash, scope, op, args, idempotency, conditions) {
      return outcomeOf(
        await statement(
          "select auth, error, result, replay, version, not_modified from api.call($1, $2, $3, $4, $5, $6)",
          [
            keyHash,
            scope,
            op,
            args === undefined ? null : JSON.stringify(args),
            idempotency ? JSON.stringify(idempotency) : null,
            conditions ? JSON.stringify(conditions) : null,
          ],
        ),
      );
    },
    async publicCall(addressHash, op, args, conditions) {
      return outcomeOf(
        await statement(
          "select auth, error, result, null as replay, version, not_modified from api.public_call($1, $2, $3, $4)",
          [addressHash, op, JSON.stringify(args), conditions ? JSON.stringify(conditions) : null],
        ),
      );
    },
    async keepPicture(slug, key, version, png, clipped, drawnBy) {
      const [row] = await query<{ kept: boolean }>({
        text: "select api.keep_picture($1, $2, $3, $4, $5, $6) as kept",
        values: [slug, key, version, png, clipped, drawnBy],
      });
      return row?.kept === true;
    },
    end: async () => {
      await Promise.all([pool.end(), pollPool.end()]);
    },
  };
}
