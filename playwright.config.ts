import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * The dashboard's end-to-end suite (Playwright's own runner): `npm run e2e`, and part of
 * `npm test`. The webServer starts the product through the launcher (production build) on a
 * fresh embedded Postgres in its own data directory; tests read the seeded operator from its
 * demo.json. Debian's Chromium is launched by path (Playwright's browser download is blocked).
 */
const port = Number(process.env.E2E_PORT ?? 3100);
export const E2E_DATA_DIR = path.join(tmpdir(), `gb-dashboard-e2e-${port}`);

export default defineConfig({
  // The dashboard's specs, and the SDK's in-browser specs beside its other tests.
  testDir: ".",
  testMatch: ["e2e/dashboard/**/*.spec.ts", "sdk/test/**/*.spec.ts"],
  outputDir: "test-results/playwright",
  timeout: 120_000,
  workers: 1,
  fullyParallel: false,
  reporter: [["list"], ["html", { outputFolder: "playwright-report", open: "never" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    },
  },
  webServer: {
    command: "node e2e/dashboard/server.mjs",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: { E2E_PORT: String(port), E2E_DATA_DIR },
  },
});
