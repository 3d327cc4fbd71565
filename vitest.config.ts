import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["server/**/*.test.ts", "e2e/api/**/*.test.ts", "e2e/browser/**/*.test.ts"],
    globalSetup: ["e2e/support/global-setup.ts"],
    setupFiles: ["e2e/support/worker-env.ts"],
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: the app server under test needs one.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
