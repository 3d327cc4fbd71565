import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { makeApplePki } from "./e2e/support/apple-test-pki";

/**
 * The dashboard's end-to-end suite (Playwright's own runner): `npm run e2e`, and part of
 * `npm test`. The webServer starts the product through the launcher (production build) on a
 * fresh embedded Postgres in its own data directory; tests read the seeded operator from its
 * demo.json. Debian's Chromium is launched by path (Playwright's browser download is blocked).
 */
const port = Number(process.env.E2E_PORT ?? 3100);
export const E2E_DATA_DIR = path.join(tmpdir(), `gb-dashboard-e2e-${port}`);

/**
 * The app trusts a test Apple root instead of Apple's, so specs can make real App Store purchases
 * (signed transactions, e2e/support/apple-test-pki.ts). Beside the data directory, which the web
 * server empties when it starts; made once by the runner (the workers load this file too, with
 * TEST_WORKER_INDEX set, and read what the runner wrote: e2e/dashboard/purchases.spec.ts).
 */
export const E2E_APPLE_DIR = `${E2E_DATA_DIR}-apple`;
const appleRoot = path.join(E2E_APPLE_DIR, "apple-test-root.der");
if (process.env.TEST_WORKER_INDEX === undefined) {
  const pki = makeApplePki();
  mkdirSync(E2E_APPLE_DIR, { recursive: true });
  writeFileSync(appleRoot, pki.rootDer);
  writeFileSync(path.join(E2E_APPLE_DIR, "apple-test-pki.json"), JSON.stringify(pki.material));
}

export default defineConfig({
  // The dashboard's specs, and the SDK's in-browser specs beside its other tests.
  testDir: ".",
  testMatch: ["e2e/dashboard/**/*.spec.ts", "sdk/test/**/*.spec.ts"],
  // One of each per shard when `npm test` runs the suite in shards (e2e/support/test-all.mjs).
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results/playwright",
  timeout: 120_000,
  workers: 1,
  fullyParallel: false,
  reporter: [["list"], ["html", { outputFolder: process.env.E2E_REPORT_DIR ?? "playwright-report", open: "never" }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // A failed test keeps its trace: every action with the page's DOM before and after (the trace
    // viewer shows them) and the sources, but no screencast. Its frames were a quarter of
    // Chromium's CPU in the suite (forms.spec.ts: 87 → 64 CPU-s) and CI is CPU-bound; the failure's
    // screenshot is still taken (below).
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: true, sources: true },
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
    // No refund polls: a test project with Steam or Google credentials would send them to the real stores.
    env: { E2E_PORT: String(port), E2E_DATA_DIR, STORE_APPLE_ROOT_CERTIFICATES: appleRoot, STORE_REFUND_POLL_MINUTES: "0" },
  },
});
