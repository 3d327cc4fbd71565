import { expect, type Page, test } from "@playwright/test";
import { createKey, createProject, demo, seriousAxeFindings, shoot, signIn } from "./support";
import { anonymousPlayer, projectWithKeys } from "./support-players";

/**
 * Every dashboard form, submitted empty and with out-of-range values, says what is wrong in the
 * operator's words: never zod's ("Too small: expected string…"), a JSON path ("input.name"), a
 * developer's field names ("maxScore must not be below minScore.") or 2^53 − 1.
 */
test.use({ viewport: { width: 1280, height: 900 } });

const INTERNAL = /expected|Too (small|big)|input\.|Invalid (uuid|input)|9007199254740991|must not be below [a-z]+Score/i;
const HUGE = "99999999999999999999";

/** The page (with any open dialog and toast) shows an error, and none of it is internal text; axe finds nothing serious. */
async function plainOnly(page: Page): Promise<void> {
  await expect(page.locator("[role=alert]").first()).toBeVisible();
  // What the operator sees (textContent would include the inlined RSC payload of script tags).
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
  expect(await page.locator("body").innerText()).not.toMatch(INTERNAL);
  expect(await seriousAxeFindings(page)).toEqual([]);
}

async function newProject(page: Page, name: string): Promise<string> {
  await signIn(page);
  return createProject(page, `${name} ${Date.now()}`);
}

test("creating and renaming a project: empty and too long names are plain sentences", async ({ page }) => {
  await signIn(page);
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Project name").fill("x".repeat(101));
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("At most 100 characters.")).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-project-create");
  await page.getByLabel("Project name").fill("");
  await createProject(page, `Forms rename ${Date.now()}`);
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();
  await page.getByLabel("New project name").fill("y".repeat(101));
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByText("At most 100 characters.")).toBeVisible();
  await plainOnly(page);
});

test("creating an API key: an empty and a too long name are plain sentences", async ({ page }) => {
  const projectId = await newProject(page, "Forms keys");
  await page.goto(`/projects/${projectId}/keys`);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Key name").fill("k".repeat(101));
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.locator("#key-name-error")).toBeVisible();
  await plainOnly(page);
});

test("creating and editing a leaderboard: scores out of order or beyond the safe range are plain sentences", async ({ page }) => {
  const projectId = await newProject(page, "Forms boards");
  await page.goto(`/projects/${projectId}/leaderboards`);
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Leaderboard id").fill("arena");
  await page.getByLabel("Name").fill("Arena");
  await page.getByLabel("Minimum score").fill("10");
  await page.getByLabel("Maximum score").fill("5");
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByText("The highest score must not be below the lowest score.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Maximum score").fill(HUGE);
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByText("Enter a score between −9 quadrillion and 9 quadrillion.")).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-leaderboard-create");
  await page.getByLabel("Maximum score").fill("");
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await page.getByRole("link", { name: "Arena" }).click();
  await page.getByRole("button", { name: "Edit" }).click();
  await page.getByLabel("Name").fill("");
  await page.getByLabel("Maximum score").fill("1");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();
  await expect(page.getByText("The highest score must not be below the lowest score.")).toBeVisible();
  await plainOnly(page);
});

test("currencies and items, created and edited: empty, out of order and huge values are plain sentences", async ({ page }) => {
  const projectId = await newProject(page, "Forms economy");
  await page.goto(`/projects/${projectId}/economy`);
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByText("Enter a name.").first()).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Currency id").fill("coins");
  await page.getByLabel("Currency name").fill("Coins");
  await page.getByLabel("Initial balance").fill(HUGE);
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByText("Enter a whole number between 0 and 9 quadrillion.")).toBeVisible();
  await page.getByLabel("Initial balance").fill("10");
  await page.getByLabel("Maximum balance").fill("5");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByText("The maximum balance must not be below the starting balance.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Maximum balance").fill("");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByTestId("currency-row")).toHaveCount(1);

  await page.getByRole("button", { name: "Create item" }).click();
  await expect(page.getByText("Enter a name.").first()).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Item id").fill("shield");
  await page.getByLabel("Item name").fill("Shield");
  await page.getByLabel("Max stack").fill("0");
  await page.getByRole("button", { name: "Create item" }).click();
  await expect(page.getByText("Enter a whole number between 1 and 9 quadrillion.")).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-economy");
  await page.getByLabel("Max stack").fill("");
  await page.getByRole("button", { name: "Create item" }).click();
  await expect(page.getByTestId("item-row")).toHaveCount(1);

  await page.getByRole("button", { name: "Edit coins" }).click();
  const editor = page.getByRole("dialog");
  await editor.getByLabel("Currency name").fill("");
  await editor.getByLabel("Maximum balance").fill(HUGE);
  await editor.getByRole("button", { name: "Save currency" }).click();
  await expect(editor.getByText("Enter a name.")).toBeVisible();
  await expect(editor.getByText("Enter a whole number between 0 and 9 quadrillion.")).toBeVisible();
  await plainOnly(page);
  await editor.getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Edit shield" }).click();
  await editor.getByLabel("Max stack").fill("-3");
  await editor.getByRole("button", { name: "Save item" }).click();
  await expect(editor.getByText("Enter a whole number between 1 and 9 quadrillion.")).toBeVisible();
  await plainOnly(page);
});

test("purchases, created and edited: empty lines, missing and huge amounts are plain sentences", async ({ page }) => {
  const projectId = await newProject(page, "Forms purchases");
  await page.goto(`/projects/${projectId}/economy`);
  await page.getByLabel("Currency id").fill("coins");
  await page.getByLabel("Currency name").fill("Coins");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByTestId("currency-row")).toHaveCount(1);
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByText("Enter a name.").first()).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Purchase id").fill("buy");
  await page.getByLabel("Purchase name").fill("Buy");
  await page.getByRole("button", { name: "Add a cost" }).click();
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByText("Pick a currency or an item.")).toBeVisible();
  await page.getByLabel("Costs line 1", { exact: true }).click();
  await page.getByRole("option", { name: "Currency: Coins (coins)" }).click();
  await page.getByLabel("Costs amount 1").fill(HUGE);
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByText("Enter a whole number between 1 and 9 quadrillion.")).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-purchase");
  await page.getByLabel("Costs amount 1").fill("5");
  await page.getByRole("button", { name: "Add a reward" }).click();
  await page.getByLabel("Rewards line 1", { exact: true }).click();
  await page.getByRole("option", { name: "Currency: Coins (coins)" }).click();
  await page.getByLabel("Rewards amount 1").fill("6");
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByTestId("purchase-row")).toHaveCount(1);
  await page.getByRole("button", { name: "Edit buy" }).click();
  const editor = page.getByRole("dialog");
  await editor.getByLabel("Purchase name").fill("");
  await editor.getByLabel("Rewards amount 1").fill("0");
  await editor.getByRole("button", { name: "Save purchase" }).click();
  await expect(editor.getByText("Enter a name.")).toBeVisible();
  await expect(editor.getByText("Enter a whole number between 1 and 9 quadrillion.")).toBeVisible();
  await plainOnly(page);
});

test("granting on the player page: a missing or huge amount and a too long reason are plain sentences", async ({ page, request }) => {
  const projectId = await newProject(page, "Forms grant");
  await page.goto(`/projects/${projectId}/keys`);
  const key = await createKey(page, "CLIENT", "grant test");
  const player = (await (await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": key } })).json()) as { playerId: string };
  await page.goto(`/projects/${projectId}/economy`);
  await page.getByLabel("Currency id").fill("coins");
  await page.getByLabel("Currency name").fill("Coins");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByTestId("currency-row")).toHaveCount(1);
  await page.goto(`/projects/${projectId}/players/${player.playerId}`);
  await page.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(page.getByText("Enter an amount.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Currency or item").click();
  await page.getByRole("option", { name: "Coins (currency)" }).click();
  await page.getByLabel("Amount").fill(HUGE);
  await page.getByLabel("Reason", { exact: true }).fill("r".repeat(501));
  await page.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(page.getByText("Enter a whole number between 1 and 9 quadrillion.")).toBeVisible();
  await expect(page.getByText("Use at most 500 characters.")).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-grant");
});

test("inviting a member and adding an identity provider: empty and malformed values are plain sentences", async ({ page }) => {
  const projectId = await newProject(page, "Forms members");
  await page.goto(`/projects/${projectId}/members`);
  await page.getByRole("button", { name: "Add" }).click();
  await expect(page.getByText("Enter an e-mail address.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Member e-mail").fill("not-an-address");
  await page.getByRole("button", { name: "Add" }).click();
  await expect(page.getByText("Enter an e-mail address.")).toBeVisible();
  await plainOnly(page);
  await page.goto(`/projects/${projectId}/providers`);
  await page.getByRole("button", { name: "Save provider" }).click();
  await expect(page.locator("[role=alert]").first()).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Provider id").fill("x".repeat(80));
  await page.getByLabel("JWKS URL").fill("not a url");
  await page.getByRole("button", { name: "Save provider" }).click();
  await plainOnly(page);
  await shoot(page, "forms-providers");
});

test("operator tokens, the password change and the e-mail settings: bad values are plain sentences", async ({ page }) => {
  const projectId = await newProject(page, "Forms account");
  await page.goto("/tokens");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Name the token.")).toBeVisible();
  await plainOnly(page);
  await page.getByLabel("Name", { exact: true }).fill("ci");
  await page.getByLabel("Expires after (days)").fill(HUGE);
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.locator("#token-expiry-error")).toBeVisible();
  await plainOnly(page);

  await page.goto("/account");
  await page.getByLabel("Current password").fill("whatever it is");
  await page.getByLabel("New password").fill("short");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("The current password is wrong.", { exact: true })).toBeVisible();
  await plainOnly(page);
  // A new password the service refuses (so the seeded operator's password never changes here).
  await page.getByLabel("Current password").fill(demo().operatorPassword);
  await page.getByLabel("New password").fill(demo().operatorEmail);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("The password may not contain your e-mail address or its name part.", { exact: true })).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-account");

  await page.goto(`/projects/${projectId}/email`);
  await page.getByLabel("Sender name").fill("n".repeat(101));
  await page.getByLabel("Sender address").fill("nobody");
  await page.getByRole("button", { name: "Save e-mail settings" }).click();
  await expect(page.getByText("At most 100 characters.")).toBeVisible();
  await expect(page.getByText("Enter an e-mail address, such as game@studio.com.")).toBeVisible();
  await plainOnly(page);
});

test("importing a configuration: an empty document and one with bad values are plain sentences that say where", async ({ page }) => {
  const projectId = await newProject(page, "Forms config");
  await page.goto(`/projects/${projectId}/config`);
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByText("Paste or upload a configuration document.")).toBeVisible();
  await plainOnly(page);
  const empty = { version: 1, currencies: [], items: [], purchases: [], leaderboards: [], identityProviders: [] };
  const board = { id: "arena", name: "Arena", sortOrder: "desc", operator: "best", resetSchedule: null, clientWritable: true };
  await page
    .getByLabel("Configuration document")
    .fill(JSON.stringify({ ...empty, leaderboards: [{ ...board, minScore: 10, maxScore: 5 }] }));
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByText('Leaderboard 1, "maxScore": The highest score must not be below the lowest score.')).toBeVisible();
  await plainOnly(page);
  const coins = { id: "coins", name: "", initialBalance: 1e20, maxBalance: null, clientWritable: true };
  await page.getByLabel("Configuration document").fill(JSON.stringify({ ...empty, currencies: [coins] }));
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByText(/Currency 1, "name": Enter a name\./)).toBeVisible();
  await expect(page.getByText(/Currency 1, "initialBalance": Enter a whole number of at most 9 quadrillion\./)).toBeVisible();
  await plainOnly(page);
  await shoot(page, "forms-config");
});

test("a player's display name: a too long name is a plain sentence", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Forms name");
  const player = await anonymousPlayer(request, clientKey);
  await page.goto(`/projects/${projectId}/players/${player.playerId}`);
  await page.getByRole("button", { name: "Edit name" }).click();
  await page.getByLabel("Display name").fill("n".repeat(33));
  await page.getByRole("button", { name: "Save name" }).click();
  await expect(page.locator("#player-display-name-error, [role=alert]").first()).toBeVisible();
  await plainOnly(page);
});
