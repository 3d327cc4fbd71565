import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { E2E_DATA_DIR } from "../../playwright.config";
import { anotherOperator, mutate } from "./board-fixtures";
import { openProject, seriousAxeFindings, signIn } from "./support";

/**
 * axe on every dashboard page and every dialog that opens without changing anything: each page
 * is loaded (no "Loading…" left), checked, then each dialog trigger on it (a button with
 * aria-haspopup="dialog": Radix dialog and alert-dialog triggers, and the buttons that open a
 * controlled dialog) is clicked, the open dialog checked and closed with Escape. Triggers that
 * repeat per row (Remove, Set score) are opened once per page. Demo Game is the project (the
 * seed's boards, currencies, items and purchases) with one player who has a score, metadata and
 * a saved value; the configuration page is checked with a dry-run diff on screen. Three tests
 * (project pages, game pages, the operator's own pages); in each, findings are gathered for every
 * page and dialog and compared once, so one run names them all.
 */
// Each test walks a dozen pages and every dialog on them: minutes on a loaded machine.
test.describe.configure({ timeout: 480_000 });

type Demo = { apiKey: string };
const demoKey = () => (JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "demo.json"), "utf8")) as Demo).apiKey;

let findings: Record<string, string[]> = {};
let checked: string[] = [];
test.beforeEach(() => {
  findings = {};
  checked = [];
});
async function check(page: Page, name: string): Promise<void> {
  checked.push(name);
  const found = await seriousAxeFindings(page);
  if (found.length > 0) findings[name] = found;
}

/** The walk reached the dialogs it is meant to (a renamed trigger would silently drop one), and found nothing serious. */
function expectClean(reached: string[]): void {
  for (const name of reached)
    expect(
      checked.some((c) => c.startsWith(name)),
      `${name}… in ${checked.join(", ")}`,
    ).toBe(true);
  expect(findings).toEqual({});
}

/** Signed in, on Demo Game: its path (/projects/<id>). */
async function demoGame(page: Page): Promise<string> {
  await signIn(page);
  await openProject(page, "Demo Game");
  await expect(page.getByTestId("project-name")).toHaveText("Demo Game");
  return new URL(page.url()).pathname.replace(/\/$/, "");
}

const open = (page: Page) => page.locator('[role="dialog"], [role="alertdialog"]');

/** Loads a page and waits until nothing on it is loading. */
async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.locator("main h1").first()).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
}

/** Checks the page, then opens each distinct dialog trigger on it, checks the dialog and closes it with Escape. */
async function checkPageAndDialogs(page: Page, name: string, url: string): Promise<void> {
  await visit(page, url);
  await check(page, name);
  const triggers = page.locator('main button[aria-haspopup="dialog"]:not([disabled])');
  const seen = new Set<string>();
  const count = await triggers.count();
  for (let i = 0; i < count; i++) {
    const trigger = triggers.nth(i);
    const text = ((await trigger.textContent()) ?? "").trim() || ((await trigger.getAttribute("aria-label")) ?? `#${i}`);
    // One per kind and card: "Edit" under Currencies and under Items are different dialogs, every row's "Remove" the same one.
    const card = await trigger.evaluate((el) => el.closest("section")?.querySelector("h2")?.textContent?.trim() ?? "");
    const label = card ? `${card}: ${text}` : text;
    if (seen.has(label)) continue;
    seen.add(label);
    await trigger.click();
    await expect(open(page)).toHaveCount(1);
    await check(page, `${name} › dialog "${label}"`);
    await page.keyboard.press("Escape");
    await expect(open(page)).toHaveCount(0);
  }
}

test("the project pages (overview, keys, players, a player, the economy, purchases, store, members, providers, e-mail, audit) and their dialogs", async ({
  page,
  request,
}) => {
  // A player of Demo Game with a saved value.
  const key = demoKey();
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": key } });
  const { playerId, accessToken } = (await session.json()) as { playerId: string; accessToken: string };
  const headers = { "X-API-Key": key, Authorization: `Bearer ${accessToken}` };
  await request.patch("/api/v1/players/me", { headers, data: { displayName: "Axe Tester" } });
  await request.put(`/api/v1/players/${playerId}/data/profile`, { headers, data: { value: { color: "teal" } } });
  const project = await demoGame(page);
  await check(page, "overview (from the projects list)");
  const pages: Array<[string, string]> = [
    ["overview", project],
    ["keys", `${project}/keys`],
    ["players", `${project}/players`],
    ["player", `${project}/players/${playerId}`],
    ["economy", `${project}/economy`],
    ["purchases", `${project}/purchases`],
    ["store", `${project}/store`],
    ["members", `${project}/members`],
    ["providers", `${project}/providers`],
    ["e-mail", `${project}/email`],
    ["audit", `${project}/audit`],
  ];
  for (const [name, url] of pages) await checkPageAndDialogs(page, name, url);

  // The player page's ban asks in a dialog once a reason is given (nothing is banned: cancelled).
  await visit(page, `${project}/players/${playerId}`);
  await page.getByLabel("Ban reason").fill("axe check");
  await page.getByRole("button", { name: "Ban", exact: true }).click();
  await expect(open(page)).toHaveCount(1);
  await check(page, 'player › dialog "Ban"');
  await page.keyboard.press("Escape");
  await expect(open(page)).toHaveCount(0);
  expectClean([
    'overview › dialog "',
    'keys › dialog "',
    'player › dialog "Ban"',
    'economy › dialog "Currencies: Edit"',
    'economy › dialog "Items: Edit"',
    'economy › dialog "Purchases: Edit"',
  ]);
});

test("the live ops pages (remote config, audiences, experiments) and their dialogs", async ({ page }) => {
  const project = await demoGame(page);
  for (const [name, url] of [
    ["live config", `${project}/live`],
    ["audiences", `${project}/live/audiences`],
    ["experiments", `${project}/live/experiments`],
  ] as const)
    await checkPageAndDialogs(page, name, url);
  expectClean(["live config", "audiences", "experiments"]);
});

test("the game pages (leaderboards, a leaderboard with an entry, configuration with a dry-run diff) and their dialogs", async ({
  page,
  request,
}) => {
  const key = demoKey();
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": key } });
  const { accessToken } = (await session.json()) as { accessToken: string };
  const headers = { "X-API-Key": key, Authorization: `Bearer ${accessToken}` };
  await request.post("/api/v1/leaderboards/high-scores/scores", { headers, data: { score: 4242, metadata: { level: 3 } } });
  const project = await demoGame(page);
  await checkPageAndDialogs(page, "leaderboards", `${project}/leaderboards`);
  await checkPageAndDialogs(page, "leaderboard", `${project}/leaderboards/high-scores`);

  // The configuration page with a dry run's diff on screen (a renamed board), and its Apply question (cancelled).
  await visit(page, `${project}/config`);
  await check(page, "config");
  const exported = (await page.getByTestId("config-export").textContent()) ?? "";
  await page.getByLabel("Configuration document").fill(exported.replace('"High scores"', '"High scores (renamed)"'));
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByTestId("diff-row").first()).toBeVisible();
  await check(page, "config › diff");
  await page.getByRole("button", { name: "Apply", exact: true }).click();
  await expect(open(page)).toHaveCount(1);
  await check(page, 'config › dialog "Apply"');
  await page.keyboard.press("Escape");
  await expect(open(page)).toHaveCount(0);
  expectClean([
    'leaderboard › dialog "Entries (current period): Set score"',
    'leaderboard › dialog "Entries (current period): Set a player\'s score"',
    'leaderboard › dialog "Entries (current period): Remove"',
    'leaderboard › dialog "Settings: Reset now"',
    'leaderboard › dialog "Settings: Delete"',
    'config › dialog "Apply"',
  ]);
});

test("the operator's pages (projects, account, tokens, instance, operators, a project's members with a viewer) and their dialogs", async ({
  page,
  browser,
}) => {
  await signIn(page);
  // Rows with actions: a second operator (a viewer of a project of its own) and an access token.
  const other = await anotherOperator(page, browser, "Axe viewer");
  await mutate(page, "tokens.create", { name: "axe token", role: "VIEWER", projectIds: null, expiresInDays: 30 });
  const pages: Array<[string, string]> = [
    ["projects", "/projects"],
    ["account", "/account"],
    ["tokens", "/tokens"],
    ["instance", "/instance"],
    ["operators", "/operators"],
    ["members (with a viewer)", `/projects/${other.projectId}/members`],
  ];
  for (const [name, url] of pages) await checkPageAndDialogs(page, name, url);
  // A member's actions are a menu (role, "Remove from project…"), and removing asks in a dialog (cancelled).
  await page.getByRole("button", { name: `Actions for ${other.email}` }).click();
  await expect(page.getByRole("menu")).toBeVisible();
  await check(page, "members (with a viewer) › menu");
  await page.getByRole("menuitem", { name: "Remove from project…" }).click();
  await expect(open(page)).toHaveCount(1);
  await check(page, 'members (with a viewer) › dialog "Remove from project"');
  await page.keyboard.press("Escape");
  await expect(open(page)).toHaveCount(0);
  expectClean(['tokens › dialog "', 'operators › dialog "', 'members (with a viewer) › dialog "']);
});
