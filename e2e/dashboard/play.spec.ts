import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type APIRequestContext, type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { E2E_DATA_DIR } from "../../playwright.config";
import { openProject, shoot, signIn } from "./support";

/**
 * The sample game at /play, played in Chromium against the real app with 3-second rounds
 * (`?round=3`): a guest signs in, names themself, buys a potion, plays rounds whose scores,
 * coins and cloud save are checked through the API as the studio's server (server key +
 * X-Player-Id), settles cloud-save conflicts both ways, drinks the potion, upgrades to e-mail,
 * confirms the address with the mailed code, signs back in, resets a forgotten password with a
 * mailed code (read from the dashboard's outbox); the operator then finds the player on the dashboard. A round paused with P, and
 * a phone-sized touch round at the end. Screenshots go to test-results/screenshots/play*.png (wide 1280×800 and 390×844).
 *
 * Every round opens with three coins falling straight above the catcher's starting place, so
 * a round played with the pointer held at the middle always scores.
 */
const SHOTS = path.join(import.meta.dirname, "../../test-results/screenshots");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NAME = `Ace ${Date.now() % 1_000_000}`;
const EMAIL = `ace-${Date.now()}@player.test`;
const PASSWORD = "coin cascade forever 7";
const NEW_PASSWORD = "coin cascade once more 8";

type Keys = { apiKey: string; serverApiKey: string };
const keys = (): Keys => JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "demo.json"), "utf8")) as Keys;
/** The studio's server acting as the player. */
const asPlayer = (playerId: string) => ({ "X-API-Key": keys().serverApiKey, "X-Player-Id": playerId });

type Transaction = {
  kind: string;
  purchaseId: string | null;
  currencies: { id: string; delta: number }[];
  items: { itemId: string; delta: number }[];
};
async function purchases(request: APIRequestContext, playerId: string, purchaseId: string): Promise<Transaction[]> {
  const res = await request.get("/api/v1/economy/transactions?limit=100", { headers: asPlayer(playerId) });
  expect(res.status()).toBe(200);
  const { transactions } = (await res.json()) as { transactions: Transaction[] };
  return transactions.filter((t) => t.kind === "purchase" && t.purchaseId === purchaseId);
}

async function cloudSave(request: APIRequestContext, playerId: string): Promise<{ version: number; data: Record<string, unknown> }> {
  const res = await request.get("/api/v1/saves/progress", { headers: asPlayer(playerId) });
  expect(res.status()).toBe(200);
  return (await res.json()) as { version: number; data: Record<string, unknown> };
}

/** Another device of the same player writes the progress save (at `version`). */
async function writeFromElsewhere(
  request: APIRequestContext,
  playerId: string,
  version: number,
  data: Record<string, unknown>,
): Promise<void> {
  const res = await request.put("/api/v1/saves/progress", {
    headers: { ...asPlayer(playerId), "If-Match": `"${version}"` },
    data: { data },
  });
  expect(res.status()).toBe(200);
}

/**
 * The latest code mailed to `email` in a message whose subject has `subject`, read as the studio's
 * support would: on the dashboard's E-mail page (this app has no SMTP_URL, so mail waits in the outbox).
 */
async function mailedCode(browser: Browser, email: string, subject: string): Promise<string> {
  const operatorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const operator = await operatorContext.newPage();
    await signIn(operator);
    await openProject(operator, "Demo Game");
    await operator.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "E-mail", exact: true }).click();
    const row = operator.getByTestId("email-row").filter({ hasText: email }).filter({ hasText: subject }).first();
    await expect(row).toContainText("outbox", { timeout: 20_000 });
    await row.getByText("Show").click();
    const code = /\b(\d{6})\b/.exec((await row.locator("pre").textContent()) ?? "")?.[1];
    if (!code) throw new Error(`no code in the mail to ${email}`);
    return code;
  } finally {
    await operatorContext.close();
  }
}

const playField = (page: Page) => page.getByLabel(/^Coin Cascade play field/);

/** Starts a round, holds the pointer over the middle (where the opening coins fall) and waits for the result. */
async function playRound(page: Page, screenshot?: string): Promise<number> {
  await page.getByRole("button", { name: /^Play( again)?$/ }).click();
  await expect(page.getByTestId("final-score")).toHaveCount(0);
  const box = await playField(page).boundingBox();
  if (!box) throw new Error("no play field");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.8);
  if (screenshot) {
    await expect(page.getByTestId("hud-score")).not.toHaveText("0");
    await page.screenshot({ path: path.join(SHOTS, `${screenshot}.png`) });
  }
  await expect(page.getByTestId("final-score")).toBeVisible({ timeout: 15_000 });
  return Number(await page.getByTestId("final-score").textContent());
}

test.describe.configure({ mode: "serial" });

let context: BrowserContext;
let page: Page;
let playerId = "";
let firstScore = 0;

test.beforeAll(async ({ browser }) => {
  mkdirSync(SHOTS, { recursive: true });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
});
test.afterAll(async () => {
  await context.close();
});

test("a first visit signs in a guest, and a reload keeps the same player", async () => {
  await page.goto("/play?round=3");
  await expect(page.getByTestId("player-id")).toHaveText(UUID);
  playerId = (await page.getByTestId("player-id").textContent()) ?? "";
  await expect(page.getByTestId("account-kind")).toHaveText("Playing as a guest");
  await expect(page.getByRole("button", { name: "Play", exact: true })).toBeEnabled();
  await shoot(page, "play");
  await page.reload();
  await expect(page.getByTestId("player-id")).toHaveText(playerId);
});

test("a display name saved in the game is the player's profile name", async ({ request }) => {
  await page.getByRole("form", { name: "Display name" }).getByLabel("Display name").fill(NAME);
  await page.getByRole("button", { name: "Save name" }).click();
  await expect(page.getByText("Name saved")).toBeVisible();
  await expect(page.getByTestId("playing-as")).toHaveText(`Playing as ${NAME}`);
  const me = await request.get("/api/v1/players/me", { headers: asPlayer(playerId) });
  expect(await me.json()).toMatchObject({ playerId, displayName: NAME, hasEmail: false });
});

test("a setting changed in the game is stored in the player's data", async ({ request }) => {
  await page.getByRole("radio", { name: "Easy" }).check();
  await expect(page.getByTestId("settings-status")).toHaveText("Settings saved to your account.");
  const res = await request.get("/api/v1/players/me/data/settings", { headers: asPlayer(playerId) });
  expect(await res.json()).toMatchObject({ value: { difficulty: "easy", sound: true } });
});

test("the shop sells a potion for 10 coins, and the player's ledger has the buy-potion purchase", async ({ request }) => {
  await expect(page.getByTestId("balance-coins")).toHaveText(/^100\s*Coins$/);
  await page.getByRole("button", { name: "Buy a potion for 10 coins" }).click();
  await expect(page.getByText("Bought a potion.")).toBeVisible();
  await expect(page.getByTestId("balance-coins")).toHaveText(/^90\s*Coins$/);
  await expect(page.getByTestId("inventory-potion")).toContainText("×1");
  expect(await purchases(request, playerId, "buy-potion")).toEqual([
    expect.objectContaining({
      currencies: [expect.objectContaining({ id: "coins", delta: -10 })],
      items: [expect.objectContaining({ itemId: "potion", delta: 1 })],
    }),
  ]);
});

test("a sword needs a gem: the shop says so in plain words", async () => {
  await page.getByRole("button", { name: "Buy a sword for 50 coins + 1 gem" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Not enough gems: you have 0, this needs 1." })).toBeVisible();
  await expect(page.getByTestId("balance-coins")).toHaveText(/^90\s*Coins$/);
});

test("a played round's score is the player's entry on high-scores", async ({ request }) => {
  firstScore = await playRound(page, "play-round");
  expect(firstScore).toBeGreaterThan(0);
  await expect(page.getByTestId("round-status")).toHaveText("Saved: score on the board, coins in your wallet, progress in the cloud.");
  const entry = await request.get("/api/v1/leaderboards/high-scores/player", { headers: asPlayer(playerId) });
  expect(await entry.json()).toMatchObject({ playerId, displayName: NAME, score: firstScore });
  await expect(page.getByTestId("board-me").first()).toContainText(`${NAME} (you)${firstScore}`);
  await shoot(page, "play-results");
});

test("the round's coins are added to the wallet the game shows", async ({ request }) => {
  const res = await request.get("/api/v1/economy/currencies", { headers: asPlayer(playerId) });
  const coins = ((await res.json()) as { id: string; balance: number }[]).find((c) => c.id === "coins")?.balance ?? 0;
  expect(coins).toBeGreaterThan(90);
  await expect(page.getByTestId("balance-coins")).toHaveText(new RegExp(`^${coins}\\s*Coins$`));
});

test("the round's progress is in the player's cloud save", async ({ request }) => {
  expect(await cloudSave(request, playerId)).toMatchObject({ version: 1, data: { bestScore: firstScore, roundsPlayed: 1 } });
  await expect(page.getByTestId("rounds-played")).toHaveText("1");
});

test("a save changed on another device meanwhile asks, and 'keep this device' writes over it", async ({ request }) => {
  await writeFromElsewhere(request, playerId, 1, {
    bestScore: 5000,
    roundsPlayed: 40,
    coinsEarned: 0,
    bestCombo: 0,
    unlocked: ["classic"],
  });
  const score = await playRound(page);
  const dialog = page.getByRole("dialog", { name: "Your progress changed on another device" });
  await expect(dialog.getByTestId("conflict-cloud")).toContainText("Rounds40");
  await expect(dialog.getByTestId("conflict-local")).toContainText("Rounds2");
  await page.screenshot({ path: path.join(SHOTS, "play-conflict.png") });
  await dialog.getByRole("button", { name: "Keep this device's progress" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("round-status")).toHaveText("Kept this device's progress.");
  expect(await cloudSave(request, playerId)).toMatchObject({
    version: 3,
    data: { bestScore: Math.max(firstScore, score), roundsPlayed: 2 },
  });
});

test("'keep cloud' loads the other device's progress and writes nothing", async ({ request }) => {
  await writeFromElsewhere(request, playerId, 3, {
    bestScore: 5000,
    roundsPlayed: 40,
    coinsEarned: 0,
    bestCombo: 0,
    unlocked: ["classic"],
  });
  await playRound(page);
  const dialog = page.getByRole("dialog", { name: "Your progress changed on another device" });
  await dialog.getByRole("button", { name: "Keep cloud progress" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("round-status")).toHaveText("Loaded the progress from the cloud.");
  await expect(page.getByTestId("rounds-played")).toHaveText("40");
  await expect(page.getByTestId("best-score")).toHaveText("5000");
  expect(await cloudSave(request, playerId)).toMatchObject({ version: 4, data: { roundsPlayed: 40 } });
});

test("drinking a potion starts the round with a fourth life and spends the potion (drink-potion in the ledger)", async ({ request }) => {
  await page.getByLabel(/^Drink a potion/).check();
  await page.getByRole("button", { name: "Play again" }).click();
  await expect(page.getByRole("img", { name: "4 lives" })).toBeVisible();
  await expect(page.getByTestId("final-score")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId("inventory-potion")).toHaveCount(0);
  expect(await purchases(request, playerId, "drink-potion")).toEqual([
    expect.objectContaining({ items: [expect.objectContaining({ itemId: "potion", delta: -1 })] }),
  ]);
});

test("upgrading the guest to an e-mail account keeps the player id", async ({ request }) => {
  const form = page.getByRole("form", { name: "Keep your progress with an e-mail" });
  await form.getByLabel("E-mail").fill(EMAIL);
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByRole("button", { name: "Keep my progress" }).click();
  await expect(page.getByText("Your progress is now tied to your e-mail")).toBeVisible();
  await expect(page.getByTestId("account-kind")).toHaveText("Signed in with e-mail: your progress is safe.");
  await expect(page.getByTestId("player-id")).toHaveText(playerId);
  const me = await request.get("/api/v1/players/me", { headers: asPlayer(playerId) });
  expect(await me.json()).toMatchObject({ playerId, hasEmail: true });
});

// Codes are no longer readable on the dashboard's outbox (stored masked, by design), and this
// suite's app has no SMTP server to catch them: these two wait for an SMTP catcher in the
// Playwright web server. The same flows run over real SMTP in e2e/api/account-email.test.ts.
test.fixme("the game asks for the code from the verification e-mail, and the code confirms the address", async ({ browser, request }) => {
  const form = page.getByRole("form", { name: "Confirm your e-mail" });
  await expect(form).toBeVisible();
  await form.getByLabel("Code from the e-mail").fill(await mailedCode(browser, EMAIL, "confirm your e-mail address"));
  await form.getByRole("button", { name: "Confirm e-mail" }).click();
  await expect(form).toHaveCount(0);
  const me = await request.get("/api/v1/players/me", { headers: asPlayer(playerId) });
  expect(await me.json()).toMatchObject({ playerId, emailVerified: true });
});

test("signing out and back in with the e-mail returns to the same player and progress", async () => {
  await page.getByRole("button", { name: "Sign out" }).click();
  const form = page.getByRole("form", { name: "Sign in" });
  await expect(form).toBeVisible();
  await expect(page.getByTestId("playing-as")).toHaveText("Signed out");
  await form.getByLabel("E-mail").fill(EMAIL);
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("player-id")).toHaveText(playerId);
  await expect(page.getByTestId("rounds-played")).toHaveText("41");
});

// Codes are no longer readable on the dashboard's outbox (stored masked, by design), and this
// suite's app has no SMTP server to catch them: these two wait for an SMTP catcher in the
// Playwright web server. The same flows run over real SMTP in e2e/api/account-email.test.ts.
test.fixme("'Forgot your password?' mails a code; the code and a new password sign in to the same player, and the old password stops working", async ({
  browser,
  request,
}) => {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByText("Forgot your password?").click();
  const ask = page.getByRole("form", { name: "Send a reset code" });
  await ask.getByLabel("E-mail").fill(EMAIL);
  await ask.getByRole("button", { name: "E-mail me a code" }).click();
  await expect(ask.getByText(`If ${EMAIL} has an account with a confirmed address, a code is on its way.`)).toBeVisible();
  const reset = page.getByRole("form", { name: "Set a new password" });
  await reset.getByLabel("Code from the e-mail").fill(await mailedCode(browser, EMAIL, "password reset code"));
  await reset.getByLabel("New password").fill(NEW_PASSWORD);
  await page.screenshot({ path: path.join(SHOTS, "play-forgot-password.png") });
  await reset.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByTestId("player-id")).toHaveText(playerId);
  const old = await request.post("/api/v1/auth/email/login", {
    headers: { "X-API-Key": keys().apiKey },
    data: { email: EMAIL, password: PASSWORD },
  });
  expect(old.status()).toBe(401);
});

test("the operator finds the game's player on the demo project's players page", async ({ browser }) => {
  const operatorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const operator = await operatorContext.newPage();
  await signIn(operator);
  await openProject(operator, "Demo Game");
  await operator.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Players" }).click();
  await operator.getByLabel("Search players").fill(NAME);
  const row = operator.getByRole("row").filter({ has: operator.getByRole("link", { name: playerId }) });
  await expect(row).toContainText(NAME);
  await expect(row).toContainText(EMAIL);
  await operatorContext.close();
});

test("P pauses a round from the keyboard, and Resume plays it to the end", async () => {
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await page.keyboard.press("p");
  await expect(page.getByText("Paused", { exact: true })).toBeVisible();
  const frozen = await page.getByTestId("hud-time").textContent();
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByText("Paused", { exact: true })).toHaveCount(0);
  await expect(page.getByTestId("final-score")).toBeVisible({ timeout: 15_000 });
  expect(frozen).not.toBe("0s");
});

test("on a phone-sized touch screen the game fits the width and a round played by touch scores", async ({ browser }) => {
  const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const phone = await phoneContext.newPage();
  await phone.goto("/play?round=3");
  await expect(phone.getByTestId("player-id")).toHaveText(UUID);
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await phone.getByRole("button", { name: "Play", exact: true }).tap();
  const box = await playField(phone).boundingBox();
  if (!box) throw new Error("no play field");
  expect(box.width).toBeLessThanOrEqual(390);
  await phone.touchscreen.tap(box.x + box.width / 2, box.y + box.height * 0.8);
  await expect(phone.getByTestId("hud-score")).not.toHaveText("0");
  await phone.screenshot({ path: path.join(SHOTS, "play-round-phone.png") });
  await expect(phone.getByTestId("final-score")).not.toHaveText("0", { timeout: 15_000 });
  await phoneContext.close();
});
