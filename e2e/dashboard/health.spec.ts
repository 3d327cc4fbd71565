import { expect, type Page, test } from "@playwright/test";
import { sql } from "./live-support";
import { createKey, createProject, seriousAxeFindings, shoot, signIn } from "./support";
import { trpcMutation } from "./support-players";

/**
 * The overview is a health view: the range tabs change what the numbers cover and the caption
 * says which, generated traffic shows up in the counts, error codes and routes, and the players
 * card; an instance admin also has the instance page. Screenshots go to
 * test-results/screenshots/health-*.png, wide (1280) and phone (390 × 844).
 */
test.describe.configure({ mode: "serial" });
test.use({ viewport: { width: 1280, height: 900 } });

const number = async (page: Page, testId: string) => Number(((await page.getByTestId(testId).textContent()) ?? "").replace(/,/g, ""));

async function noSidewaysScroll(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  // Polled: the charts take the new width on their ResizeObserver's next callback.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("the overview shows the project's health for the chosen range, and the instance page all projects", async ({ page, request }) => {
  await signIn(page);
  const projectId = await createProject(page, `Health ${Date.now()}`);
  // A fresh project: no traffic yet, in any range.
  await page.getByRole("button", { name: "Last hour" }).click();
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last hour");
  await expect(page.getByText("No requests in the last hour.")).toBeVisible();
  await noSidewaysScroll(page);
  await shoot(page, "health-empty");

  await page.getByRole("link", { name: "API keys" }).click();
  const clientKey = await createKey(page, "CLIENT", "health build");
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } });
  expect(session.status()).toBe(200);
  const { accessToken } = (await session.json()) as { accessToken: string };
  const player = { "X-API-Key": clientKey, Authorization: `Bearer ${accessToken}` };
  for (let i = 0; i < 4; i++) expect((await request.get("/api/v1/players/me", { headers: player })).status()).toBe(200);
  for (let i = 0; i < 2; i++)
    expect((await request.get("/api/v1/leaderboards/none", { headers: { "X-API-Key": clientKey } })).status()).toBe(404);

  await page.goto(`/projects/${projectId}`);
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last 24 hours");
  await expect(page.getByRole("button", { name: "Last 24 hours" })).toHaveAttribute("aria-pressed", "true");
  // Counts are written every 0.5 s here; the page refetches every 10 s.
  await expect.poll(() => number(page, "stat-requests"), { timeout: 30_000 }).toBe(7);
  await expect(page.getByTestId("stat-active-today")).toHaveText("1");
  await expect(page.getByTestId("stat-new-today")).toHaveText("1");
  await expect(page.getByTestId("stat-error-rate")).toHaveText("28.6%");
  await expect(page.getByTestId("top-code")).toHaveCount(1);
  await expect(page.getByTestId("top-code")).toContainText("LEADERBOARD_NOT_FOUND");
  await expect(page.getByTestId("top-route").filter({ hasText: "GET /api/v1/players/{id}" })).toContainText("4");
  await expect(page.getByTestId("stat-p95")).toHaveText(/ms$/);
  await noSidewaysScroll(page);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "health-overview");

  await page.getByRole("button", { name: "Last hour" }).click();
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last hour");
  await expect(page.getByRole("button", { name: "Last hour" })).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => number(page, "stat-requests")).toBe(7);
  await expect(page.getByText("Requests by status, per minute")).toBeVisible();
  await shoot(page, "health-hour");

  await page.getByRole("button", { name: "Last 7 days" }).click();
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last 7 days");
  await expect.poll(() => number(page, "stat-requests")).toBe(7);
  await page.getByRole("button", { name: "30 days", exact: true }).click();
  await expect(page.getByTestId("players-caption")).toHaveText("New and active players per day (UTC), last 30 days");

  // The seeded operator is an instance admin: the header links the instance page.
  await page.getByRole("link", { name: "Instance", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Instance health" })).toBeVisible();
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last 24 hours");
  const row = page.getByTestId("instance-project").filter({ hasText: "Health " });
  await expect(row.first()).toBeVisible({ timeout: 20_000 });
  await expect.poll(() => number(page, "stat-requests")).toBeGreaterThanOrEqual(7);
  await noSidewaysScroll(page);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "health-instance");
});

test("the overview says what it is loading; a failed refetch shows its message above the numbers it had, a failed new range the message alone", async ({
  page,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Health states ${Date.now()}`);
  // The real answers, held back or with the health query's entry made to fail (other queries of
  // the same batch keep theirs): the page's states, not the server, are under test here.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let failing = false;
  await page.route(/\/api\/trpc\/[^?]*health\.project/, async (route) => {
    await held;
    const response = await route.fetch();
    if (!failing) return route.fulfill({ response });
    const procedures = new URL(route.request().url()).pathname.slice("/api/trpc/".length).split(",");
    const body = (await response.json()) as unknown[];
    const failure = {
      message: "The health numbers could not be read.",
      code: -32603,
      data: { code: "INTERNAL_SERVER_ERROR", httpStatus: 500 },
    };
    const answers = procedures.map((p, i) =>
      p === "health.project" ? { error: { ...failure, data: { ...failure.data, path: p } } } : body[i],
    );
    return route.fulfill({ response, status: procedures.length > 1 ? 207 : 500, json: answers });
  });

  await page.goto(`/projects/${projectId}`);
  await expect(page.getByText("Loading requests in the last 24 hours…")).toBeVisible();
  release();
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last 24 hours");
  await expect(page.getByTestId("stat-requests")).toHaveText("0");

  failing = true;
  // The page refetches every 10 s: that refetch fails (after one retry), and the numbers it had stay.
  await expect(page.getByText("The health numbers could not be read.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("stat-requests")).toHaveText("0");
  await expect(page.getByTestId("health-caption")).toHaveText("Requests in the last 24 hours");
  await shoot(page, "health-refetch-error");
  // A range whose numbers never arrived shows the message alone.
  await page.getByRole("button", { name: "Last hour" }).click();
  await expect(page.getByTestId("health-caption")).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByText("The health numbers could not be read.")).toBeVisible();
  await expect(page.getByTestId("stat-requests")).toHaveCount(0);
  await shoot(page, "health-error");
});

test("a chart's tooltip passes axe in the light and the dark theme (its lines are not drawn in the series' colours)", async ({
  page,
  request,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Health tooltip ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  const clientKey = await createKey(page, "CLIENT", "tooltip build");
  // One answered and one refused request: the requests chart has bars, the players chart a day.
  expect((await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } })).status()).toBe(200);
  expect((await request.get("/api/v1/leaderboards/none", { headers: { "X-API-Key": clientKey } })).status()).toBe(404);
  await page.goto(`/projects/${projectId}`);
  await page.getByRole("button", { name: "Last hour" }).click();
  await expect.poll(() => number(page, "stat-requests"), { timeout: 30_000 }).toBe(2);
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    for (const chart of [page.getByTestId("requests-chart"), page.getByTestId("players-chart")]) {
      await chart.scrollIntoViewIfNeeded();
      const box = await chart.boundingBox();
      if (!box) throw new Error("the chart has no box");
      // The right end of the plot: the current minute (requests) and today (players).
      await page.mouse.move(box.x + box.width - 20, box.y + box.height / 2);
      await expect(chart.locator(".recharts-tooltip-item").first()).toBeVisible();
      expect(await seriousAxeFindings(page)).toEqual([]);
      await shoot(page, `health-tooltip-${colorScheme}`);
    }
  }
});

test("the overview splits requests by release against the range before, and marks a config change on the chart", async ({
  page,
  request,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Health releases ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  const clientKey = await createKey(page, "CLIENT", "releases build");
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } });
  const { accessToken } = (await session.json()) as { accessToken: string };
  const as = (version: string, platform: string) => ({
    "X-API-Key": clientKey,
    Authorization: `Bearer ${accessToken}`,
    "X-Client-Version": version,
    "X-Platform": platform,
  });
  for (let i = 0; i < 3; i++) expect((await request.get("/api/v1/players/me", { headers: as("1.4.2", "ios") })).status()).toBe(200);
  expect((await request.get("/api/v1/leaderboards/none", { headers: as("2.0.0", "android") })).status()).toBe(404);
  expect((await request.get("/api/v1/players/me", { headers: as("1.0 beta", "Android OS!") })).status()).toBe(200);
  // The hour before: 1.4.2 on iOS answered 10 times, half of them errors, all in (250, 500] ms.
  await sql(
    `INSERT INTO release_stats (project_id, resolution, bucket, client_version, platform, count, errors, limited, latency_buckets)
     VALUES ($1, 'MINUTE', date_trunc('minute', now()) - interval '90 minutes', '1.4.2', 'ios', 10, 5, 0, '{0,0,0,0,0,0,0,0,10}')`,
    [projectId],
  );
  await trpcMutation(page, "remoteConfig.upsertKey", {
    projectId,
    key: "shop.discount",
    type: "number",
    defaultValue: 0,
    description: "",
    reason: "weekend sale",
  });

  await page.goto(`/projects/${projectId}`);
  await page.getByRole("button", { name: "Last hour" }).click();
  // Counts are written every 0.5 s here; the page refetches every 10 s.
  await expect.poll(() => number(page, "stat-requests"), { timeout: 30_000 }).toBe(6);
  const rows = page.getByTestId("release-row");
  await expect(rows).toHaveCount(3);
  const ios = rows.filter({ hasText: "1.4.2" });
  await expect(ios).toContainText("ios");
  await expect(ios).toContainText("0.0% (0)");
  // Against the hour before: fewer requests, 50 points fewer errors, a lower p95.
  await expect(ios.getByTestId("release-versus")).toContainText("down 7 requests");
  await expect(ios.getByTestId("release-versus")).toContainText("down 50.0 pts errors");
  await expect(ios.getByTestId("release-versus")).toContainText(/down .* p95/);
  await expect(rows.filter({ hasText: "2.0.0" })).toContainText("none before");
  await expect(rows.filter({ hasText: "2.0.0" })).toContainText("100.0% (1)");
  // The sign-in (no headers) and the malformed values: one "unknown" row.
  await expect(rows.filter({ hasText: "unknown" })).toContainText("2");
  await expect(page.getByTestId("releases-caption")).toContainText("against the hour before");
  const marker = page.getByTestId("health-marker");
  await expect(marker).toHaveCount(1);
  await expect(marker).toContainText('Config key "shop.discount" saved');
  await expect(marker).toContainText("UTC");
  await expect(page.getByTestId("requests-chart").locator(".health-marker-line")).toHaveCount(1);
  await noSidewaysScroll(page);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "health-releases");
});
