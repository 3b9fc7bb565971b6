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
  },
});
