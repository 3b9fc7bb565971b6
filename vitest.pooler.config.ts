// The pooler pass: the function reaches Postgres through PgBouncer in transaction mode, as hosted
// functions reach it through Supavisor (port 6543), so that a session-level assumption (a named
// prepared statement, a session setting or lock, LISTEN) fails here rather than in production.
// These files cover what a pooler could break: the HTTP layer, concurrency and the lock order,
// idempotency, the rate limit, webhooks and the live stream. `npm test` runs this pass after the
// main suite where PgBouncer is installed (scripts/test.mjs); tests/platform/pooler.pass.test.ts checks the
// requests really went through it.
import { defineConfig } from "vitest/config";

process.env.TEST_POOLER = "1"; // read by the global setup, in this process

export default defineConfig({
  test: {
    include: [
      "tests/platform/pooler.pass.test.ts",
      "tests/http/envelope.test.ts",
      "tests/http/request-path.test.ts",
      "tests/http/concurrency.test.ts",
      "tests/teams/lock-order.test.ts",
      "tests/webhooks/lock-order.test.ts",
      "tests/http/idempotency.test.ts",
      "tests/keys/security.test.ts",
      "tests/keys/me.test.ts",
      "tests/public/routes.test.ts",
      "tests/webhooks/delivery.test.ts",
      "tests/live/stream.test.ts",
      "tests/live/properties.test.ts",
    ],
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
  },
});
