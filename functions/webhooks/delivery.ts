// One delivery attempt: a claimed delivery POSTed to its endpoint, signed (Standard Webhooks)
// with each of the endpoint's secrets, and what came of it as webhooks.settle records it. The
// claims, the order of sends and the settling around it are dispatcher.ts.
import { decryptSecret, sign, toBase64 } from "../_shared/webhook-secrets.ts";
import { refusedDestination } from "./destination.ts";

/** A delivery attempt as webhooks.claim hands it out, leased to one dispatcher. */
export interface Claimed {
  delivery_id: string;
  lease_token: string;
  event_id: string;
  endpoint_id: string;
  url: string;
  secrets: Uint8Array[];
  payload: string;
  attempts: number;
}

/** What became of a claimed attempt (or that it was handed back unattempted), as webhooks.settle takes it. */
export interface Outcome {
  delivery_id: string;
  lease_token: string;
  attempted: boolean;
  ok?: boolean;
  status_code?: number | null;
  error?: string | null;
  retry_in?: number | null;
}

const USER_AGENT = "TournamentAPI-Webhooks/1.0";

/** What an attempt needs of the dispatcher's options (DispatcherOptions). */
export interface AttemptOptions {
  /** A 2xx within this many milliseconds is a success. */
  timeoutMs: number;
  /** The delays before each retry, in seconds; after the last, a failure is final. */
  retrySeconds: number[];
  allowLocal: boolean;
}

/** The endpoints' secrets, decrypted once and kept by their sealed bytes. */
export class Secrets {
  private decrypted = new Map<string, Uint8Array>();

  constructor(private readonly encryptionKey: CryptoKey) {}

  /** A sealed secret (as webhooks.claim gives it) decrypted. */
  async get(stored: Uint8Array): Promise<Uint8Array> {
    const id = toBase64(stored);
    let raw = this.decrypted.get(id);
    if (!raw) {
      raw = await decryptSecret(this.encryptionKey, stored);
      if (this.decrypted.size > 10_000) this.decrypted.clear();
      this.decrypted.set(id, raw);
    }
    return raw;
  }
}

/** One attempt: never throws; the outcome says what happened (never a secret). */
export async function attempt(row: Claimed, options: AttemptOptions, secrets: Secrets): Promise<Outcome> {
  const base = { delivery_id: row.delivery_id, lease_token: row.lease_token, attempted: true };
  const failed = (error: string, status_code: number | null = null): Outcome => {
    const retry = options.retrySeconds[row.attempts];
    return { ...base, ok: false, status_code, error: error.slice(0, 500), retry_in: retry ?? null };
  };
  let url: URL;
  try {
    url = new URL(row.url);
  } catch {
    return failed("the endpoint URL is not valid");
  }
  const refused = await refusedDestination(url, options.allowLocal);
  if (refused) return failed(refused);
  let signatures: string;
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const keys = await Promise.all(row.secrets.map((s) => secrets.get(s)));
    signatures = (await Promise.all(keys.map((s) => sign(s, row.event_id, timestamp, row.payload)))).join(" ");
  } catch {
    return failed("the endpoint's secret could not be decrypted with WEBHOOK_ENCRYPTION_KEY");
  }
  try {
    const res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": row.event_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatures,
      },
      body: row.payload,
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { ...base, ok: true, status_code: res.status, error: null, retry_in: null };
    if (res.status >= 300 && res.status < 400) return failed(`redirect ${res.status} not followed`, res.status);
    return failed(`the endpoint answered ${res.status}`, res.status);
  } catch (err) {
    const e = err as Error;
    if (e?.name === "TimeoutError" || e?.name === "AbortError") {
      return failed(`no response within ${options.timeoutMs} ms`);
    }
    return failed(`request failed: ${String(e?.message ?? e).replace(/\s+/g, " ")}`);
  }
}
