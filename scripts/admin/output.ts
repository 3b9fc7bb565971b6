// Output and error text for the operator CLI (scripts/admin.ts): tables, dates, and one clear
// line for each database error, with secrets scrubbed.

/** An ISO 8601 UTC date-time without milliseconds, or `-`. */
export function when(value: Date | null): string {
  return value ? value.toISOString().replace(/\.\d{3}Z$/, "Z") : "-";
}

/** Prints rows as an aligned table with a header, or `empty` when there are none. */
export function table(headers: string[], rows: string[][], empty: string): void {
  if (rows.length === 0) {
    console.log(empty);
    return;
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [headers, ...rows]) {
    console.log(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join("  "));
  }
}

/** Prints a value as indented JSON (dates as ISO strings). */
export function json(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** Removes anything secret from a message: API keys and the database password. */
export function redact(message: string, databaseUrl?: string): string {
  let out = message.replace(/tmk_[0-9A-Za-z]+/g, "tmk_…");
  const password = databaseUrl ? safeUrl(databaseUrl)?.password : "";
  if (password) {
    for (const p of new Set([password, decodeURIComponent(password)])) out = out.split(p).join("***");
  }
  return out;
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Where DATABASE_URL points, for messages: host, port and database, never the credentials. */
export function describeUrl(url: string): string {
  const u = safeUrl(url);
  return u ? `${u.hostname}:${u.port || "5432"}${u.pathname}` : "DATABASE_URL";
}

// Messages for the check constraints the admin.* functions can hit (see the migrations).
const CHECKS: Record<string, string> = {
  accounts_name_check: "the account name must be 1 to 200 characters and not blank",
  api_keys_name_check: "the key name (--name) must be 1 to 200 characters and not blank",
  teams_name_check: "the team name must be 1 to 100 characters and not blank",
  teams_tag_check: "the team tag must be 1 to 20 characters and not blank",
  teams_logo_url_check: "--logo must be an http:// or https:// URL",
};

// Connection-level failures: SQLSTATE class 08, 28 (authentication) and 3D000 (no such database).
const CONNECTION = /^(08|28|3D000|57P0)/;
const NETWORK = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);

interface PgError {
  code?: string;
  message?: string;
  hint?: string;
  constraint?: string;
}

/**
 * One line that says what went wrong, for an error from pg (never its detail, which may hold row
 * data). `source` says where the URL came from: DATABASE_URL (its password is scrubbed) or the
 * local stack.
 */
export function describeError(
  err: unknown,
  databaseUrl: string,
  ids: { account?: string; user?: string },
  source = "DATABASE_URL",
): string {
  const e = (err ?? {}) as PgError;
  const message = String(e.message ?? err);
  const code = e.code ?? "";
  let text: string;
  if (code === "P0002") {
    text = message;
  } else if (code === "22023") {
    text = e.hint ? `${message} (${e.hint})` : message;
  } else if (code === "23514") {
    text = CHECKS[e.constraint ?? ""] ?? `rejected by the database: ${message}`;
  } else if (code === "23503" && e.constraint === "account_members_account_id_fkey") {
    text = `account ${ids.account} not found`;
  } else if (code === "23503" && e.constraint === "account_members_user_id_fkey") {
    text = `no Supabase Auth user ${ids.user} (auth.users) in this project`;
  } else if (code === "42883" || code === "3F000" || code === "42P01") {
    text = `${message}: are the migrations (supabase/migrations) applied to this database?`;
  } else if (code === "42501") {
    text = `${message}: connect as the database owner (postgres)`;
  } else if (CONNECTION.test(code) || NETWORK.has(code) || /connect|terminated|timeout/i.test(message)) {
    text = `cannot use the database at ${describeUrl(databaseUrl)} (${source}): ${message}`;
  } else {
    text = message;
  }
  // The local stack's password is the well-known "postgres" (also the database's name): not a secret.
  return redact(text.replace(/\s+/g, " ").trim(), source === "DATABASE_URL" ? databaseUrl : undefined);
}
