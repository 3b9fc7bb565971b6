// The dispatcher: claims due delivery attempts (webhooks.claim), POSTs them signed, and records
// the outcomes (webhooks.settle). It is also the worker that applies the participants' reports
// nobody answered by their deadline (confirmDueReports: webhooks.confirm_due_reports). Any number may run at once over one database; each attempt is
// leased to one for 60 seconds, so one that dies mid-attempt loses nothing.
//
// Per endpoint, the attempts of one claim are sent one after another in claim order (first
// attempts in event order); endpoints are served side by side, at most `concurrency` requests
// in flight. When an attempt to an endpoint fails, that endpoint's remaining first attempts of
// the claim are handed back unattempted (it is likely down; they keep their order), and so is
// whatever would outlive the lease. One attempt's sending and signing is delivery.ts.
import pg from "pg";
import { attempt, type AttemptOptions, type Claimed, type Outcome, Secrets } from "./delivery.ts";

/** The dispatcher's settings (an attempt's own: AttemptOptions). */
export interface DispatcherOptions extends AttemptOptions {
  /** Connections as tournament_webhooks. */
  pool: pg.Pool;
  encryptionKey: CryptoKey;
  /** Requests in flight at most. */
  concurrency: number;
  /** An endpoint failing this long is disabled. */
  disableAfterSeconds: number;
  /** Waits on LISTEN webhooks (the caller listens and calls wake()): commits notify it while it waits. */
  listening?: boolean;
  log: (line: Record<string, unknown>) => void;
}

const LEASE_MS = 60_000;

export class Dispatcher {
  private inFlight = 0;
  private waiting: (() => void)[] = [];
  private queued = 0;
  private settling: { outcome: Outcome; done: () => void }[] = [];
  private flushing: Promise<void> | null = null;
  private readonly secrets: Secrets;
  private active = new Set<Promise<void>>();
  /** Attempts made since start. */
  attempts = 0;
  private readonly id = crypto.randomUUID();
  /** Deliveries being sent, by id: their batch (settle reports the ones that are gone). */
  private batches = new Map<string, { gone: boolean }>();

  constructor(private options: DispatcherOptions) {
    this.secrets = new Secrets(options.encryptionKey);
  }

  private wakeUp: (() => void) | null = null;
  private woken = false;

  /** Ends a wait early, or the next one if none is waiting: something may be due. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private pause(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const race = this.active.size ? Promise.race(this.active) : null;
      race?.then(done, done);
      this.wakeUp = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    }).finally(() => {
      this.wakeUp = null;
      this.woken = false;
    });
  }

  /**
   * Claims and sends until `until` (or, with `exitWhenIdle`, until nothing is due and nothing is
   * in flight); between claims it waits for a send to finish, a wake() or `pollMs` (retries come
   * due on the clock). Returns the attempts made. A database error is logged and retried.
   */
  async run(
    { until = Infinity, exitWhenIdle = false, pollMs = 1000, stopped = () => false }: {
      until?: number;
      exitWhenIdle?: boolean;
      pollMs?: number;
      stopped?: () => boolean;
    } = {},
  ): Promise<number> {
    const before = this.attempts;
    while (Date.now() < until && !stopped()) {
      let claimed: number;
      try {
        claimed = await this.claimBatch();
      } catch (err) {
        this.options.log({ level: "error", msg: "claim failed; retrying", error: (err as Error).message });
        await this.pause(1000);
        continue;
      }
      if (claimed > 0) continue;
      if (exitWhenIdle && this.active.size === 0) break;
      const wait = Math.min(pollMs, Math.max(0, until - Date.now()));
      if (this.options.listening && this.active.size === 0) {
        // Idle: ask commits to notify while this waits, then look once more (a commit that
        // checked for sleepers just before is visible now, or is found at the next poll).
        try {
          await this.options.pool.query("select webhooks.sleep($1, $2)", [this.id, wait + 500]);
          if (await this.claimBatch() > 0) continue;
        } catch { /* the database is away: the poll retries */ }
        const started = Date.now();
        await this.pause(wait);
        // Woken early: there is work, so commits need not notify for the rest of the wait.
        if (Date.now() - started < wait - 5) await this.options.pool.query("select webhooks.sleep($1, 0)", [this.id]).catch(() => {});
        continue;
      }
      await this.pause(wait);
    }
    await Promise.all(this.active);
    await this.flush();
    return this.attempts - before;
  }

  /** Claims one batch if there is room, and starts sending it; returns how many were claimed. */
  private async claimBatch(): Promise<number> {
    // Enough queued per endpoint that a claim's cost spreads over many sends (each endpoint's
    // attempts go out one at a time), few enough that a batch ends well within its lease.
    const room = this.options.concurrency * 32 - this.queued;
    if (room <= 0) return 0;
    const { rows } = await this.options.pool.query<Claimed>(
      "select delivery_id, lease_token, event_id, endpoint_id, url, secrets, payload, attempts from webhooks.claim($1, $2)",
      [room, 50],
    );
    if (rows.length === 0) return 0;
    const deadline = Date.now() + LEASE_MS - this.options.timeoutMs - 5_000;
    const byEndpoint = new Map<string, Claimed[]>();
    for (const row of rows) {
      const list = byEndpoint.get(row.endpoint_id) ?? [];
      list.push(row);
      byEndpoint.set(row.endpoint_id, list);
    }
    this.queued += rows.length;
    for (const list of byEndpoint.values()) {
      const task = this.sendAll(list, deadline).finally(() => this.active.delete(task));
      this.active.add(task);
    }
    return rows.length;
  }

  private async sendAll(list: Claimed[], deadline: number): Promise<void> {
    let endpointDown = false;
    const batch = { gone: false };
    for (const row of list) this.batches.set(row.delivery_id, batch);
    for (const row of list) {
      this.queued--;
      // The endpoint was deleted (or the lease taken over) meanwhile: nothing more to send.
      if (batch.gone) continue;
      if ((endpointDown && row.attempts === 0) || Date.now() > deadline) {
        this.settle({ delivery_id: row.delivery_id, lease_token: row.lease_token, attempted: false });
        continue;
      }
      const started = Date.now();
      const outcome = await this.withSlot(() => {
        this.attempts++;
        return attempt(row, this.options, this.secrets);
      });
      if (!outcome.ok) endpointDown = true;
      const settled = this.settle(outcome);
      // After a slow attempt, confirm the batch is still ours before the next (its endpoint may
      // have been deleted meanwhile); after a fast one the window is too small to be worth a wait.
      if (Date.now() - started > 100) await settled;
    }
    for (const row of list) this.batches.delete(row.delivery_id);
  }

  private async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    while (this.inFlight >= this.options.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    try {
      return await fn();
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }

  /** Queues an outcome; outcomes are written in batches, one call at a time. Resolves once written. */
  private settle(outcome: Outcome): Promise<void> {
    const written = new Promise<void>((done) => this.settling.push({ outcome, done }));
    this.flushing ??= this.flushLoop();
    return written;
  }

  /** Waits until every queued outcome is written. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.settling.length) {
        const entries = this.settling.splice(0);
        const batch = entries.map((e) => e.outcome);
        try {
          const { rows } = await this.options.pool.query<{ lost_delivery_id: string }>(
            "select lost_delivery_id from webhooks.settle($1, make_interval(secs => $2))",
            [JSON.stringify(batch), this.options.disableAfterSeconds],
          );
          for (const { lost_delivery_id } of rows) {
            const owner = this.batches.get(lost_delivery_id);
            if (owner) owner.gone = true;
          }
          for (const e of entries) e.done();
          // Settled first attempts free their endpoint's next ones: claim again now, not at the next poll.
          this.wake();
        } catch (err) {
          // The database went away: these attempts are made again once their lease ends (at least once).
          this.options.log({
            level: "error",
            msg: "settle failed; the attempts will be made again after their lease",
            deliveries: batch.length,
            error: (err as Error).message,
          });
          for (const e of entries) e.done();
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Applies the participants' reports past their `confirm_by` as confirmed (contract section 18:
   * `webhooks.confirm_due_reports`, exactly once however many workers sweep), `batch` per call
   * (one transaction each), again while a call comes back full. Returns how many were applied, or
   * null when the database failed (logged: the next sweep tries again; nothing is lost).
   */
  async confirmDueReports(batch = 100): Promise<number | null> {
    let total = 0;
    try {
      for (;;) {
        const { rows } = await this.options.pool.query<{ n: number }>("select webhooks.confirm_due_reports($1) as n", [batch]);
        total += rows[0].n;
        if (rows[0].n < batch) break;
      }
    } catch (err) {
      this.options.log({
        level: "error",
        msg: "confirming due reports failed; the next sweep tries again",
        confirmed: total,
        error: (err as Error).message,
      });
      return null;
    }
    if (total > 0) this.options.log({ level: "info", msg: "reports confirmed", confirmed: total });
    return total;
  }

  /** Deletes what is older than 30 days (a batch). */
  async prune(): Promise<number> {
    const { rows } = await this.options.pool.query<{ n: number }>("select webhooks.prune() as n");
    return rows[0].n;
  }
}
