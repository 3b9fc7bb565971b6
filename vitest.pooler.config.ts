// The pooler pass: the function reaches Postgres through PgBouncer in transaction mode, as hosted
// functions reach it through Supavisor (port 6543), so that a session-level assumption (a named
// prepared statement, a session setting or lock, LISTEN) fails here rather than in production.
// These files cover what a pooler could break: the HTTP layer, concurrency and the lock order,
// idempotency, the rate limit, webhooks and the live stream. `npm test` runs this pass after the
// main suite where PgBouncer is installed (scripts/test.mjs); tests/pooler.pass.test.ts checks the
// requests really went through it.
import { defineConfig } from "vitest/config";

process.env.TEST_POOLER = "1"; // read by the global setup, in this process

export default defineConfig({
  test: {
    include: [
      "tests/pooler.pass.test.ts",
      "tests/http.test.ts",
      "tests/request-path.test.ts",
      "tests/concurrency.test.ts",
      "tests/teams-lock-order.test.ts",
      "tests/lock-order.test.ts",
      "tests/idempotency.test.ts",
      "tests/security.test.ts",
      "tests/me.test.ts",
      "tests/public.test.ts",
      "tests/webhooks.test.ts",
      "tests/live.test.ts",
      "tests/live-properties.test.ts",
    ],
    globalSetup: ["tests/setup/global.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
  },
});
