// What both functions read from their environment the same way.

/** Reads a variable: Deno.env.get on Deno, process.env in tests. */
export type Env = (name: string) => string | undefined;

/**
 * Variables that only Supabase's edge runtime sets: SB_REGION, SB_EXECUTION_ID and
 * DENO_DEPLOYMENT_ID on the hosted platform, SUPABASE_URL there and under
 * `supabase functions serve`. `npm start` and the tests set none of them.
 */
export const SUPABASE_RUNTIME_MARKERS = ["SB_REGION", "SB_EXECUTION_ID", "DENO_DEPLOYMENT_ID", "SUPABASE_URL"] as const;

/** A variable's trimmed value; undefined when unset or blank. */
export function set(env: Env, name: string): string | undefined {
  const value = env(name)?.trim();
  return value ? value : undefined;
}

/** A positive integer, or the fallback for anything else. */
export function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Whether the function runs in Supabase's edge runtime (hosted, or `supabase functions serve`). */
export function onSupabase(env: Env): boolean {
  return SUPABASE_RUNTIME_MARKERS.some((name) => set(env, name) !== undefined);
}

/**
 * Why the database URL in variable `name` cannot be used, never quoting it (it holds a
 * password); null when `parse` (pg's own parser, e.g. `new pg.Client({ connectionString })`)
 * accepts it. An unencoded `#`, `/`, `?` or `@` in the password is the usual cause.
 */
export function unusableUrl(name: string, url: string, parse: (url: string) => unknown): string | null {
  try {
    parse(url);
    return null;
  } catch {
    return `${name} cannot be parsed as a postgres:// URL: URL-encode its password ` +
      `(node -e 'console.log(encodeURIComponent(process.argv[1]))' '<password>') and check its port`;
  }
}
