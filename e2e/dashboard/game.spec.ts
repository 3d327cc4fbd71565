import { type APIRequestContext, type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { createKey, createProject, demo, shoot, signIn } from "./support";

/**
 * The game-facing dashboard against the real app and the game API: an operator creates a
 * leaderboard, three players submit through the API, the operator sees them ranked and removes
 * one (the API's ranks move up); defines a currency, an item and a purchase, grants a player
 * coins (the API shows the balance), the player buys through the API, and the ledger shows both;
 * exports the configuration and imports it into a second project (dry run → diff → apply), whose
 * game API then serves the same board and purchase.
 * A viewer sees the same pages without controls, and the server refuses their forged grant.
 * Screenshots of every new page go to test-results/screenshots/ (wide and phone-sized).
 * One behaviour per test, in order on one signed-in page (serial: each test builds on the
 * project the ones before it set up).
 */
const PASSWORD = "a long unusual operator passphrase 47";

/** Apply on the Configuration page, confirmed; the page says it applied. */
async function applyImport(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Apply", exact: true }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("created");
  await dialog.getByRole("button", { name: "Apply changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Applied" })).toBeVisible();
}

type Player = { playerId: string; headers: Record<string, string> };
async function newPlayer(request: APIRequestContext, clientKey: string, displayName: string): Promise<Player> {
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } });
  expect(session.status()).toBe(200);
  const { playerId, accessToken } = (await session.json()) as { playerId: string; accessToken: string };
  const headers = { "X-API-Key": clientKey, Authorization: `Bearer ${accessToken}` };
  expect((await request.patch("/api/v1/players/me", { headers, data: { displayName } })).status()).toBe(200);
  return { playerId, headers };
}

async function inviteViewer(page: Page, browser: Browser, projectId: string, email: string): Promise<void> {
  await page.goto(`/projects/${projectId}/members`);
  await page.getByLabel("Member e-mail").fill(email);
  await page.getByLabel("Member role").click();
  await page.getByRole("option", { name: /^Viewer/ }).click();
  await page.getByRole("button", { name: "Add" }).click();
  const link = (await page.getByTestId("invite-link").textContent()) ?? "";
  const context = await browser.newContext();
  const invited = await context.newPage();
  await invited.goto(link);
  await invited.getByLabel("Your name").fill("Vic Viewer");
  await invited.getByLabel("Choose a password").fill(PASSWORD);
  await invited.getByRole("button", { name: "Create my account" }).click();
  // The new operator is signed in and lands on the project.
  await invited.waitForURL(new RegExp(`/projects/${projectId}$`));
  await context.close();
}

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let projectId = "";
let clientKey = "";
let players: { ada: Player; bo: Player; cy: Player };
let exported = "";
const dialog = () => page.getByRole("alertdialog");
const editor = () => page.getByRole("dialog");
const rows = () => page.getByTestId("entry-row");

test.beforeAll(async ({ browser }) => {
  context = await browser.newContext();
  page = await context.newPage();
  await signIn(page);
  projectId = await createProject(page, `Game ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  clientKey = await createKey(page, "CLIENT", "game client");
});
test.afterAll(async () => {
  await context?.close();
});

test("the leaderboard form refuses a bad id and a cron expression without five fields before sending", async () => {
  await page.getByRole("link", { name: "Leaderboards" }).click();
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();
  await page.getByLabel("Leaderboard id").fill("Arena!");
  await page.getByLabel("Reset schedule (UTC)").click();
  await page.getByRole("option", { name: "Cron expression…" }).click();
  await page.getByLabel("Cron expression (5 fields)").fill("0 18 * *");
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByText("Leaderboard ids are 1–64")).toBeVisible();
  await expect(page.getByText("5-field cron expression")).toBeVisible();
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();
});

test("five cron fields that do not parse: the server's refusal lands under the cron field", async () => {
  await page.getByLabel("Leaderboard id").fill("arena");
  await page.getByLabel("Name").fill("Arena");
  await page.getByLabel("Cron expression (5 fields)").fill("99 18 * * 5");
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByText("That cron expression does not work")).toBeVisible();
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();
});

test("a weekly leaderboard is created and listed", async () => {
  await page.getByLabel("Name").fill("Arena");
  await page.getByLabel("Reset schedule (UTC)").click();
  await page.getByRole("option", { name: "Weekly (Mondays)" }).click();
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByTestId("leaderboard-row")).toHaveCount(1);
  await shoot(page, "leaderboards");
});

test("scores submitted through the game API are ranked on the board's page, and the search finds one player", async ({ request }) => {
  const [ada, bo, cy] = [
    await newPlayer(request, clientKey, "Ada"),
    await newPlayer(request, clientKey, "Bo"),
    await newPlayer(request, clientKey, "Cy"),
  ];
  players = { ada, bo, cy };
  for (const [i, p] of [ada, bo, cy].entries()) {
    const submit = await request.post("/api/v1/leaderboards/arena/scores", { headers: p.headers, data: { score: 100 * (i + 1) } });
    expect(submit.status()).toBe(200);
  }
  await page.getByRole("link", { name: "Arena", exact: true }).click();
  await expect(page.getByTestId("leaderboard-name")).toHaveText("Arena");
  await expect(rows()).toHaveCount(3);
  await expect(rows().nth(0)).toContainText("#1");
  await expect(rows().nth(0)).toContainText("Cy");
  await expect(rows().nth(2)).toContainText("Ada");
  await page.getByLabel("Search entries by player").fill("bo");
  await expect(rows()).toHaveCount(1);
  await expect(rows().first()).toContainText("#2");
  await page.getByLabel("Search entries by player").fill("");
  await expect(rows()).toHaveCount(3);
  await shoot(page, "leaderboard");
});

test("removing the leader's entry moves the others up, in the dashboard and the game API", async ({ request }) => {
  await page.getByRole("button", { name: "Remove Cy" }).click();
  await expect(dialog()).toContainText("Remove Cy's entry (#1)?");
  await dialog().getByRole("button", { name: "Remove entry" }).click();
  await expect(dialog()).toHaveCount(0);
  await expect(rows()).toHaveCount(2);
  await expect(rows().nth(0)).toContainText("Bo");
  const boRank = await request.get("/api/v1/leaderboards/arena/player", { headers: players.bo.headers });
  expect(((await boRank.json()) as { rank: number }).rank).toBe(1);
  expect((await request.get("/api/v1/leaderboards/arena/player", { headers: players.cy.headers })).status()).toBe(404);
});

test("editing a board changes its name; its sort order is fixed", async () => {
  await page.getByRole("button", { name: "Edit" }).click();
  await expect(page.getByLabel("Sort order (fixed)")).toBeDisabled();
  await page.getByLabel("Name").fill("Arena S1");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByTestId("leaderboard-name")).toHaveText("Arena S1");
});

test("Reset now archives the period, and the archive stays browsable", async () => {
  await page.getByRole("button", { name: "Reset now" }).click();
  await dialog().getByRole("button", { name: "Reset board" }).click();
  await expect(page.getByText("No scores yet in this period.")).toBeVisible();
  await page.getByLabel("Period", { exact: true }).click();
  await page.getByRole("option").nth(1).click();
  await expect(rows()).toHaveCount(2);
  await expect(rows().nth(0)).toContainText("Bo");
  await shoot(page, "leaderboard-archive");
});

test("deleting a board is enabled only once its id is typed", async () => {
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  const confirmDelete = dialog().getByRole("button", { name: "Delete leaderboard" });
  await expect(confirmDelete).toBeDisabled();
  await dialog().getByLabel("Type the board's id, arena, to confirm").fill("aren");
  await expect(confirmDelete).toBeDisabled();
  await dialog().getByLabel("Type the board's id, arena, to confirm").fill("arena");
  await expect(confirmDelete).toBeEnabled();
  await shoot(page, "leaderboard-delete");
  // Cancelled: the board is used below.
  await dialog().getByRole("button", { name: "Cancel" }).click();
  await expect(dialog()).toHaveCount(0);
});

test("an unknown board is the page's error state", async () => {
  await page.goto(`/projects/${projectId}/leaderboards/no-such-board`);
  await expect(page.getByRole("alert").filter({ hasText: "Leaderboard not found." })).toBeVisible();
  await shoot(page, "leaderboard-not-found");
});

test("a currency whose maximum is below its starting balance is refused in plain words", async () => {
  await page.getByRole("link", { name: "Economy", exact: true }).click();
  await expect(page.getByText("No currencies yet.")).toBeVisible();
  await shoot(page, "economy-empty");
  await page.getByLabel("Currency id").fill("coins");
  await page.getByLabel("Currency name").fill("Coins");
  await page.getByLabel("Initial balance").fill("10");
  await page.getByLabel("Maximum balance").fill("5");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByText("The maximum balance must not be below the starting balance.")).toBeVisible();
  await expect(page.getByText("No currencies yet.")).toBeVisible();
});

test("a currency, an item and a purchase are created; the purchase lists its cost and reward", async () => {
  await page.getByLabel("Initial balance").fill("0");
  await page.getByLabel("Maximum balance").fill("");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByTestId("currency-row")).toHaveCount(1);
  await page.getByLabel("Item id").fill("sword");
  await page.getByLabel("Item name").fill("Sword");
  await page.getByLabel("Max stack").fill("5");
  await page.getByRole("button", { name: "Create item" }).click();
  await expect(page.getByTestId("item-row")).toHaveCount(1);
  await page.getByLabel("Purchase id").fill("buy-sword");
  await page.getByLabel("Purchase name").fill("Buy a sword");
  await page.getByRole("button", { name: "Add a cost" }).click();
  await page.getByLabel("Costs line 1", { exact: true }).click();
  await page.getByRole("option", { name: "Currency: Coins (coins)" }).click();
  await page.getByLabel("Costs amount 1").fill("30");
  await page.getByRole("button", { name: "Add a reward" }).click();
  await page.getByLabel("Rewards line 1", { exact: true }).click();
  await page.getByRole("option", { name: "Item: Sword (sword)" }).click();
  await page.getByLabel("Rewards amount 1").fill("1");
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByTestId("purchase-row")).toContainText("30 Coins");
  await expect(page.getByTestId("purchase-row")).toContainText("1 Sword");
});

test("a currency a purchase uses refuses deletion and names the purchase", async () => {
  await page.getByRole("button", { name: "Delete coins" }).click();
  await dialog().getByRole("button", { name: "Delete currency" }).click();
  await expect(dialog().getByRole("alert").filter({ hasText: "buy-sword" })).toBeVisible();
  await shoot(page, "economy-in-use");
  await dialog().getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("currency-row")).toHaveCount(1);
});

test("a currency's maximum is edited in a dialog; its id is fixed", async () => {
  await page.getByRole("button", { name: "Edit coins" }).click();
  await expect(editor().getByLabel("Currency id")).toBeDisabled();
  await editor().getByLabel("Maximum balance").fill("1000");
  await editor().getByRole("button", { name: "Save currency" }).click();
  // Saving asks to confirm, with the change before → after and a reason for the audit log.
  await expect(editor().getByTestId("confirm-change")).toContainText("maxBalance");
  await editor().getByLabel("Reason (kept in the audit log)").fill("Cap the coin supply");
  await editor().getByRole("button", { name: "Confirm change" }).click();
  await expect(editor()).toHaveCount(0);
  await expect(page.getByTestId("currency-row")).toContainText("1,000");
  await shoot(page, "economy");
});

test("a grant without an amount is refused before the confirmation", async () => {
  await page.goto(`/projects/${projectId}/players/${players.ada.playerId}`);
  await expect(page.getByTestId("player-id")).toHaveText(players.ada.playerId);
  await expect(page.getByText("No economy changes yet.")).toBeVisible();
  await page.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(page.getByText("Enter an amount.")).toBeVisible();
  await expect(dialog()).toHaveCount(0);
});

test("a confirmed grant is the player's balance in the game API", async ({ request }) => {
  await page.getByLabel("Currency or item").click();
  await page.getByRole("option", { name: "Coins (currency)" }).click();
  await page.getByLabel("Amount").fill("50");
  await page.getByLabel("Reason", { exact: true }).fill("support ticket 42");
  await page.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(dialog()).toContainText("support ticket 42");
  await dialog().getByRole("button", { name: "Grant", exact: true }).click();
  await expect(dialog()).toHaveCount(0);
  await expect(page.getByTestId("balance-coins")).toContainText("50");
  const balance = await request.get("/api/v1/economy/currencies", { headers: players.ada.headers });
  expect(await balance.json()).toEqual([expect.objectContaining({ id: "coins", balance: 50 })]);
});

test("the player's ledger lists their purchase through the API and the grant with its reason and operator", async ({ request }) => {
  const bought = await request.post("/api/v1/economy/purchase", { headers: players.ada.headers, data: { purchaseId: "buy-sword" } });
  expect(bought.status()).toBe(200);
  await page.reload();
  const ledger = page.getByTestId("ledger-row");
  await expect(ledger).toHaveCount(2);
  await expect(ledger.nth(0)).toContainText("purchase");
  await expect(ledger.nth(0)).toContainText("buy-sword");
  await expect(ledger.nth(1)).toContainText("grant");
  await expect(ledger.nth(1)).toContainText("support ticket 42");
  await expect(ledger.nth(1)).toContainText(demo().operatorEmail);
  await expect(page.getByTestId("balance-coins")).toContainText("20");
  await expect(page.getByTestId("inventory-sword")).toContainText("×1");
  await shoot(page, "player-economy");
});

test("lowering a maximum below what a player holds says how many hold more, before saving", async () => {
  await page.goto(`/projects/${projectId}/economy`);
  await page.getByRole("button", { name: "Edit coins" }).click();
  await editor().getByLabel("Maximum balance").fill("10");
  await expect(editor().getByTestId("lowered-max-warning")).toHaveText(/^1 player holds more than 10\./);
  await shoot(page, "economy-lowered-max");
  await editor().getByLabel("Maximum balance").fill("20");
  await expect(editor().getByTestId("lowered-max-warning")).toHaveCount(0);
  await editor().getByRole("button", { name: "Cancel" }).click();
});

test("the overview shows the top board and the currency in circulation", async () => {
  await page.getByRole("link", { name: "Overview" }).click();
  await expect(page.getByTestId("top-board")).toContainText("Arena S1");
  await expect(page.getByTestId("circulation-coins")).toContainText("20");
  await shoot(page, "overview-game");
});

test("the audit log has one row for each leaderboard change and the grant", async () => {
  await page.getByRole("link", { name: "Audit log" }).click();
  for (const action of ["leaderboard.create", "leaderboard.entry.remove", "leaderboard.update", "leaderboard.reset", "economy.grant"]) {
    await expect(page.getByTestId("audit-row").filter({ hasText: action })).toHaveCount(1);
  }
});

test("the configuration imported into a second project (dry run, apply) is served by its game API", async ({ request }) => {
  await page.getByRole("link", { name: "Configuration" }).click();
  await expect(page.getByTestId("config-export")).toContainText('"buy-sword"');
  exported = (await page.getByTestId("config-export").textContent()) ?? "";
  await page.goto("/projects");
  await createProject(page, `Game copy ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  const copyKey = await createKey(page, "CLIENT", "copy client");
  await page.getByRole("link", { name: "Configuration" }).click();
  await page.getByLabel("Configuration document").fill(exported);
  await page.getByRole("button", { name: "Dry run" }).click();
  const diff = page.getByTestId("diff-row");
  for (const id of ["arena", "coins", "sword", "buy-sword"]) await expect(diff.filter({ hasText: id }).first()).toContainText(/creat/i);
  await shoot(page, "configuration-journey-diff");
  await applyImport(page);
  await expect(page.getByTestId("config-export")).toContainText('"buy-sword"');
  const copyBoard = await request.get("/api/v1/leaderboards/arena", { headers: { "X-API-Key": copyKey } });
  expect(copyBoard.status()).toBe(200);
  expect(await copyBoard.json()).toMatchObject({ id: "arena", name: "Arena S1", total: 0, entries: [] });
  const newcomer = await newPlayer(request, copyKey, "Dee");
  const copyCoins = await request.get("/api/v1/economy/currencies", { headers: newcomer.headers });
  expect(await copyCoins.json()).toEqual([expect.objectContaining({ id: "coins", balance: 0 })]);
  // The purchase exists there with its cost: a player without coins is refused for funds, not "not found".
  const copyBuy = await request.post("/api/v1/economy/purchase", { headers: newcomer.headers, data: { purchaseId: "buy-sword" } });
  expect(copyBuy.status()).toBe(409);
  expect(await copyBuy.json()).toMatchObject({ error: { code: "INSUFFICIENT_FUNDS", details: { currencyId: "coins", requested: 30 } } });
  await page.getByRole("link", { name: "Audit log" }).click();
  // The import's summary and one entry per definition it created (arena, coins, sword, buy-sword).
  await expect(page.getByTestId("audit-row").filter({ hasText: "config.import" })).toHaveCount(5);
  await expect(page.getByTestId("audit-row").filter({ hasText: "config.import.purchase.create" })).toHaveCount(1);
});

test.describe("a viewer", () => {
  let viewerContext: BrowserContext;
  let viewer: Page;
  const sameOrigin = () => ({ Origin: new URL(viewer.url()).origin });

  test.beforeAll(async ({ browser }) => {
    const viewerEmail = `game-viewer-${Date.now()}@studio.test`;
    await inviteViewer(page, browser, projectId, viewerEmail);
    viewerContext = await browser.newContext();
    viewer = await viewerContext.newPage();
    await signIn(viewer, viewerEmail, PASSWORD);
  });
  test.afterAll(async () => {
    await viewerContext?.close();
  });

  test("sees a player's ledger, the economy and a board without their controls", async () => {
    await viewer.goto(`/projects/${projectId}/players/${players.ada.playerId}`);
    await expect(viewer.getByTestId("ledger-row")).toHaveCount(2);
    await expect(viewer.getByRole("button", { name: "Grant", exact: true })).toHaveCount(0);
    await expect(viewer.getByLabel("Reason", { exact: true })).toHaveCount(0);
    await viewer.goto(`/projects/${projectId}/economy`);
    await expect(viewer.getByTestId("currency-row")).toHaveCount(1);
    await expect(viewer.getByRole("button", { name: "Edit coins" })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Create currency" })).toHaveCount(0);
    await viewer.goto(`/projects/${projectId}/leaderboards/arena`);
    await expect(viewer.getByTestId("leaderboard-name")).toHaveText("Arena S1");
    await expect(viewer.getByRole("button", { name: "Edit" })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Reset now" })).toHaveCount(0);
    await expect(viewer.getByText("No scores yet in this period.")).toBeVisible();
    await shoot(viewer, "leaderboard-viewer");
  });

  test("a forged grant and a forged board edit are refused (403), and the balance is unchanged", async ({ request }) => {
    const forged = await viewer.request.post("/api/trpc/economy.adjust", {
      data: {
        projectId,
        playerId: players.ada.playerId,
        direction: "grant",
        currencies: [{ currencyId: "coins", amount: 1000 }],
        reason: "forged",
      },
      headers: sameOrigin(),
    });
    expect(forged.status()).toBe(403);
    const forgedEdit = await viewer.request.post("/api/trpc/leaderboards.update", {
      data: { projectId, id: "arena", patch: { name: "forged" } },
      headers: sameOrigin(),
    });
    expect(forgedEdit.status()).toBe(403);
    const after = await request.get("/api/v1/economy/currencies", { headers: players.ada.headers });
    expect(await after.json()).toEqual([expect.objectContaining({ id: "coins", balance: 20 })]);
  });

  test("exports the configuration but cannot import it, in the page or by a forged request", async () => {
    await viewer.goto(`/projects/${projectId}/config`);
    await expect(viewer.getByTestId("config-export")).toContainText('"arena"');
    await expect(viewer.getByRole("button", { name: "Dry run" })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Apply", exact: true })).toHaveCount(0);
    const forgedImport = await viewer.request.post("/api/trpc/config.import", {
      data: { projectId, document: JSON.parse(exported) },
      headers: sameOrigin(),
    });
    expect(forgedImport.status()).toBe(403);
  });
});
