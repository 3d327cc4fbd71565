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

/** Plain HTTP against the production build: the guides are files read at run time, so this also proves docs/ is found there. */
describe("guides next to the API reference (/docs, /docs/guides)", () => {
  it("/docs links the guides", async () => {
    const res = await fetch(`${baseUrl()}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const href of ["/docs/guides", "/docs/guides/quickstart", "/docs/guides/sdk", "/docs/guides/economy"]) {
      expect(html).toContain(`href="${href}"`);
    }
  });

  it("renders a guide from docs/ with links to the other guides and back to the API reference", async () => {
    const res = await fetch(`${baseUrl()}/docs/guides/saves`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain("<title>Cloud saves · Game backend docs</title>");
    expect(html).toContain('href="/docs"');
    expect(html).toContain('href="/docs/guides/player-data#how-it-behaves"');
    expect((await fetch(`${baseUrl()}/docs/guides`)).status).toBe(200);
  });

  it("answers 404 (HTML) for an unknown guide and never serves a file outside docs/", async () => {
    for (const p of [
      "/docs/guides/nope",
      "/docs/guides/guides/nope",
      "/docs/guides/quickstart.md",
      "/docs/guides/..%2f..%2fpackage",
      "/docs/guides/%2e%2e/README",
    ]) {
      const res = await fetch(`${baseUrl()}${p}`, { redirect: "manual" });
      expect(res.status, p).toBe(404);
      const body = await res.text();
      expect(body, p).not.toContain('"dependencies"');
      expect(body, p).not.toContain("An open-source, self-hostable backend for games");
    }
    const unknown = await fetch(`${baseUrl()}/docs/guides/nope`);
    expect(unknown.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await unknown.text()).toContain("No such page");
  });
});

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

  it("renders every operation and webhook of the OpenAPI document from our own assets, with no errors", async () => {
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
    const doc = (await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    // Swagger UI draws the OpenAPI 3.1 `webhooks` section's operations as operations too.
    const items = [...Object.values(doc.paths), ...Object.values(doc.webhooks)];
    const operations = items.reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(Object.keys(doc.webhooks).length).toBeGreaterThan(0);
    expect(await page.locator(".opblock").count()).toBe(operations);
    await expect(page.getByText("/auth/anonymous").first().isVisible()).resolves.toBe(true);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await page.screenshot({ path: "test-results/docs.png" });
  }, 60_000);

  it("the header leads from the API reference to a rendered guide and back", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${baseUrl()}/docs`);
    await page.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "Quickstart" }).click();
    await page.waitForURL(`${baseUrl()}/docs/guides/quickstart`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Quickstart");
    await page.screenshot({ path: "test-results/docs-guide.png", fullPage: false });
    await page.getByRole("navigation", { name: "Documentation" }).getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(`${baseUrl()}/docs`);
    await page.locator(".opblock").first().waitFor();
    expect(errors).toEqual([]);
  }, 60_000);
});
