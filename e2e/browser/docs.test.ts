import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";

/**
 * The API reference page in a real Chromium (Debian's; Playwright's own browser download is
 * not used). CI installs it; locally the test is skipped when it is missing.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}; CI must install it`);

describe.skipIf(!available)("API reference page (/docs)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("renders every operation of the OpenAPI document from our own assets, with no errors", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    const external: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => {
      if (!r.url().startsWith(baseUrl())) external.push(r.url());
    });
    await page.goto(`${baseUrl()}/docs`);
    await page.getByText("Game backend API").first().waitFor({ timeout: 20_000 });
    await page.locator(".opblock").first().waitFor();
    const doc = (await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(await page.locator(".opblock").count()).toBe(operations);
    await expect(page.getByText("/auth/anonymous").first().isVisible()).resolves.toBe(true);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.screenshot({ path: "test-results/docs.png" });
  }, 60_000);
});
