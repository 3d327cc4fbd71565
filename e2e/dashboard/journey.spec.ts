import { type APIRequestContext, expect, test } from "@playwright/test";
import { createKey, demo, settled, shoot, signIn } from "./support";

/**
 * One operator journey through the dashboard and the game API, against the real app on a real
 * database: sign in, create a project and keys, use the API with them, find the player, ban and
 * unban, change the plan, read the audit log. Screenshots of every page go to
 * test-results/screenshots/ (wide and phone-sized).
 */

async function projectLimit(request: APIRequestContext, serverKey: string): Promise<string | undefined> {
  const res = await request.get("/api/v1/leaderboards/none", { headers: { "X-API-Key": serverKey } });
  expect(res.status()).toBe(404);
  return res.headers()["x-ratelimit-limit"];
}

test.describe.configure({ mode: "serial" });

test("signed-out visitors are sent to sign-in, and the dashboard's API refuses them", async ({ page, request }) => {
  // proxy.ts redirects before the page renders and keeps where the visitor was going.
  await page.goto("/projects/00000000-0000-0000-0000-000000000000/keys");
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fprojects%2F0{8}-0{4}-0{4}-0{4}-0{12}%2Fkeys$/);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await shoot(page, "login");
  const call = await request.post("/api/trpc/projects.create", { data: { name: "nope" } });
  expect(call.status()).toBe(401);
  const forged = await request.post("/api/trpc/projects.create", { data: { name: "nope" }, headers: { Origin: "https://evil.example" } });
  expect(forged.status()).toBe(403);
});

test("a wrong password is refused with one message for both unknown e-mail and wrong password", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(demo().operatorEmail);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("E-mail or password is wrong.")).toBeVisible();
});

test("an operator runs a game: project, keys, API, players, ban, plan, audit", async ({ page, request }) => {
  await signIn(page);
  const projectName = `E2E Studio ${Date.now()}`;
  // The form validates with the service's schema before anything is sent; the error sits on its field.
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();
  await page.getByLabel("Project name").fill(projectName);
  await page.getByRole("button", { name: "Create project" }).click(); // the new project opens
  await expect(page.getByTestId("project-name")).toHaveText(projectName);
  await expect(page.getByTestId("plan")).toContainText("FREE");

  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByText("No keys yet.")).toBeVisible();
  const clientKey = await createKey(page, "CLIENT", "iOS build");
  const serverKey = await createKey(page, "SERVER", "game server");
  await expect(page.getByRole("cell", { name: "iOS build", exact: true })).toBeVisible();
  // Revoking asks first (a Radix alert dialog): Cancel changes nothing, confirming revokes.
  await createKey(page, "CLIENT", "old build");
  await page.getByRole("button", { name: "Revoke old build" }).click();
  await expect(page.getByRole("alertdialog")).toContainText('Revoke "old build"?');
  await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await page.getByRole("button", { name: "Revoke old build" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("row", { name: /old build/ }).getByText("revoked")).toBeVisible();
  await shoot(page, "keys");

  // The game API with the new key: a player signs in and writes a data key.
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } });
  expect(session.status()).toBe(200);
  const { playerId, accessToken } = (await session.json()) as { playerId: string; accessToken: string };
  const player = { "X-API-Key": clientKey, Authorization: `Bearer ${accessToken}` };
  expect((await request.put("/api/v1/players/me/data/profile", { headers: player, data: { value: { level: 3 } } })).status()).toBe(201);

  await page.getByRole("link", { name: "Players" }).click();
  await page.getByLabel("Search players").fill(playerId);
  await page.getByRole("link", { name: playerId }).click();
  await expect(page.getByTestId("player-id")).toHaveText(playerId);
  await expect(page.getByRole("cell", { name: "profile", exact: true })).toBeVisible();

  await page.getByLabel("Ban reason").fill("cheating in ranked");
  await page.getByRole("button", { name: "Ban", exact: true }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Ban player" }).click();
  await expect(page.getByText("banned: cheating in ranked")).toBeVisible();
  const refused = await request.get("/api/v1/players/me/data/profile", { headers: player });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("PLAYER_BANNED");
  await shoot(page, "player");
  await page.getByRole("button", { name: "Unban" }).click();
  await expect(page.getByText("active", { exact: true })).toBeVisible();

  // Edit the data key as JSON (with its version), read it back through the API as the studio's server.
  await page.getByRole("button", { name: "Edit profile" }).click();
  await page.getByLabel("Value of profile").fill('{ "level": 4, "edited": true }');
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("cell", { name: "2", exact: true })).toBeVisible();
  const asServer = { "X-API-Key": serverKey, "X-Player-Id": playerId };
  const edited = await request.get("/api/v1/players/me/data/profile", { headers: asServer });
  expect(await edited.json()).toMatchObject({ version: 2, value: { level: 4, edited: true } });

  await page.getByRole("link", { name: "Players" }).click();
  await page.getByLabel("Search players").fill("");
  await expect(page.getByRole("link", { name: playerId })).toBeVisible();
  await shoot(page, "players");

  // The overview's health view shows the player and the requests just made (counters flushed every 0.5 s here, the page refetches every 10 s).
  expect(await projectLimit(request, serverKey)).toBe("100");
  await page.getByRole("link", { name: "Overview" }).click();
  await expect(page.getByTestId("stat-players")).toHaveText("1", { timeout: 20_000 });
  await expect
    .poll(async () => Number(((await page.getByTestId("stat-requests").textContent()) ?? "0").replace(/,/g, "")), {
      timeout: 30_000,
    })
    .toBeGreaterThanOrEqual(4);
  // The instance admin moves the project to Pro; the API's headers follow within a minute.
  await settled(page); // the cards above the Plan card have their final height
  await page.getByLabel("Plan", { exact: true }).click();
  await page.getByRole("option", { name: "Pro" }).click();
  await page.getByRole("button", { name: "Change plan" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByTestId("plan")).toContainText("PRO");
  await expect.poll(() => projectLimit(request, serverKey), { timeout: 60_000 }).toBe("1000");
  await shoot(page, "overview");

  await page.getByRole("link", { name: "Members" }).click();
  await expect(page.getByRole("cell", { name: demo().operatorEmail, exact: true })).toBeVisible();
  await shoot(page, "members");
  await page.getByRole("link", { name: "Identity", exact: true }).click();
  await expect(page.getByText("No identity providers")).toBeVisible();
  await page.getByLabel("Provider id").fill("local");
  await page.getByLabel("Issuer").fill("https://issuer.example");
  await page.getByLabel("JWKS URL").fill("http://127.0.0.1:1/jwks");
  await page.getByLabel("Audience (client id)").fill("game");
  await page.getByRole("button", { name: "Save provider" }).click();
  await expect(page.locator("p[role=alert]")).toContainText("https"); // the service's check: a JWKS URL must be https on a public address
  await shoot(page, "providers");

  // Delete the player and everything they own (typed confirmation); the API no longer knows them.
  await page.getByRole("link", { name: "Players" }).click();
  await page.getByLabel("Search players").fill(playerId);
  await page.getByRole("link", { name: playerId }).click();
  await page.getByRole("button", { name: "Delete player" }).click();
  const confirmDelete = page.getByRole("alertdialog").getByRole("button", { name: "Delete player" });
  await expect(confirmDelete).toBeDisabled();
  await page.getByLabel("Type delete to confirm").fill("delete");
  await shoot(page, "delete-player-dialog");
  await confirmDelete.click();
  await expect(page.getByRole("heading", { name: "Players" })).toBeVisible();
  const gone = await request.get("/api/v1/players/me/data/profile", { headers: asServer });
  expect(gone.status()).toBe(404);

  await page.getByRole("link", { name: "Audit log" }).click();
  const rows = page.getByTestId("audit-row");
  await expect(rows.filter({ hasText: "project.plan" })).toHaveCount(1);
  for (const action of ["project.create", "player.ban", "player.unban", "player.data", "player.delete"]) {
    await expect(rows.filter({ hasText: action })).toHaveCount(1);
  }
  await expect(rows.filter({ hasText: "key.create" })).toHaveCount(3);
  await expect(rows.filter({ hasText: "key.revoke" })).toHaveCount(1);
  await expect(rows.filter({ hasText: clientKey })).toHaveCount(0); // secrets never reach the log
  await shoot(page, "audit");

  await page.getByRole("link", { name: "Overview" }).click();
  await page.getByLabel("New project name").fill(`${projectName} (renamed)`);
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByTestId("project-name")).toHaveText(`${projectName} (renamed)`);
  await page.getByRole("link", { name: "Projects", exact: true }).click();
  await expect(page.getByRole("link", { name: `${projectName} (renamed)` })).toBeVisible();
  await shoot(page, "projects");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/login/);
});
