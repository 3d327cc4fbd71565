import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` (server/**: pure functions, the OpenAPI document, migrations against a
 * scratch database — no app) and `integration` (e2e/api, e2e/browser: the real app started by
 * the launcher on a fresh database, tested over HTTP; the TypeScript SDK's and the C# SDK's
 * real-server suites too). `npm test` runs both;
 * `npx vitest run --project unit` is the quick loop.
 */
// `server-only` throws outside React's server condition; vitest runs server code as plain Node.
// The SDK's suite imports the SDK's source (always current); its pack test covers the built package.
const alias = {
  "@": path.resolve(import.meta.dirname),
  "server-only": "next/dist/compiled/server-only/empty.js",
  "@game-backend/client": path.resolve(import.meta.dirname, "sdk/src/index.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: the app server under test needs one.
    maxWorkers: 2,
    fileParallelism: true,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["server/**/*.test.ts", "components/**/*.test.ts", "deploy/*.test.ts"],
          setupFiles: ["e2e/support/unit-env.ts"],
          // A project does not inherit the root's timeouts: without these a unit test got vitest's 5 s,
          // which the rank-bucket test (hundreds of statements on a scratch database) ran past under load.
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["e2e/api/**/*.test.ts", "e2e/browser/**/*.test.ts", "sdk/test/**/*.test.ts", "sdk-csharp/Tests~/**/*.test.ts"],
          globalSetup: ["e2e/support/global-setup.ts"],
          setupFiles: ["e2e/support/worker-env.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
