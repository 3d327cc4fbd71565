import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { rolldown } from "rolldown";
import { E2E_DATA_DIR } from "../../playwright.config";

/**
 * The built SDK in Chromium with no polyfills: in a page (localStorage, shared by tabs), and in a
 * Web Worker (no localStorage). The bundle is dist/ as a browser game would ship it.
 */
const apiKey = (): string => (JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "demo.json"), "utf8")) as { apiKey: string }).apiKey;

let bundle = "";
test.beforeAll(async () => {
  const build = await rolldown({ input: path.resolve(import.meta.dirname, "../dist/index.js"), logLevel: "silent" });
  const { output } = await build.generate({ format: "iife", name: "GameBackend", minify: true });
  await build.close();
  bundle = output[0].code;
});

type Window = { GameBackend: typeof import("@game-backend/client"); game: import("@game-backend/client").GameClient };

async function openTab(page: Page): Promise<void> {
  await page.goto("/api/health");
  await page.addScriptTag({ content: bundle });
  await page.evaluate((key) => {
    const w = window as unknown as Window;
    w.game = w.GameBackend.createClient({ baseUrl: location.origin, apiKey: key });
  }, apiKey());
}

test("a session signed in on one tab is picked up by another tab of the same origin", async ({ context }) => {
  const [a, b] = [await context.newPage(), await context.newPage()];
  await openTab(a);
  await openTab(b);
  const playerId = await a.evaluate(async () => (await (window as unknown as Window).game.auth.anonymous()).playerId);
  await expect.poll(() => b.evaluate(() => (window as unknown as Window).game.session?.playerId ?? null)).toBe(playerId);
  expect(await b.evaluate(async () => (await (window as unknown as Window).game.players.me()).playerId)).toBe(playerId);
});

test("two tabs whose access token expired refresh it once between them", async ({ context }) => {
  const [a, b] = [await context.newPage(), await context.newPage()];
  await openTab(a);
  await a.evaluate(async () => {
    const { game } = window as unknown as Window;
    await game.auth.anonymous();
    const stored = JSON.parse(localStorage.getItem("game-backend.session") ?? "{}");
    localStorage.setItem("game-backend.session", JSON.stringify({ ...stored, expiresAt: Date.now() - 1_000 }));
  });
  await openTab(a);
  await openTab(b);
  const refreshes: string[] = [];
  context.on("request", (request) => {
    if (request.url().endsWith("/api/v1/auth/refresh")) refreshes.push(request.url());
  });
  const me = (page: Page) => page.evaluate(async () => (await (window as unknown as Window).game.players.me()).playerId);
  const [fromA, fromB] = await Promise.all([me(a), me(b)]);
  expect(fromA).toBe(fromB);
  expect(refreshes).toHaveLength(1);
});

test("in a Web Worker (no localStorage) the SDK signs in, submits and reads a board", async ({ page }) => {
  await page.goto("/api/health");
  const result = await page.evaluate(
    async ({ code, key }) => {
      const source = `${code}
        self.onmessage = async (event) => {
          try {
            const game = GameBackend.createClient({ baseUrl: event.data.origin, apiKey: event.data.key });
            const session = await game.auth.anonymous();
            const entry = await game.leaderboards.submit("high-scores", 77);
            const page = await game.leaderboards.page("high-scores", { limit: 100 });
            self.postMessage({ playerId: session.playerId, rank: entry.rank, onBoard: page.entries.some((e) => e.playerId === session.playerId) });
          } catch (error) {
            self.postMessage({ error: String(error && error.code || error) });
          }
        };`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
      const answer = new Promise((resolve) => {
        worker.onmessage = (event) => resolve(event.data);
      });
      worker.postMessage({ origin: location.origin, key });
      return answer;
    },
    { code: bundle, key: apiKey() },
  );
  expect(result).toMatchObject({ onBoard: true });
  expect((result as { rank: number }).rank).toBeGreaterThan(0);
});
