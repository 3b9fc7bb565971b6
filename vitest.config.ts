import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // The pooler pass's own check runs in that pass only (vitest.pooler.config.ts).
    exclude: ["**/node_modules/**", "tests/platform/pooler.pass.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file seeds its own accounts and keys, so files run in parallel on the shared stack.
    fileParallelism: true,
    // Two files at a time: most of a test's time is waiting on Postgres and the function, so a
    // second worker uses the time the first waits (vitest's default on 2 cores is one).
    maxWorkers: 2,
  },
});
