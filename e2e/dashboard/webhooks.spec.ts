import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import pg from "pg";
import { E2E_DATA_DIR } from "../../playwright.config";
import { acceptInvite, createProject, INVITED_PASSWORD, invite, seriousAxeFindings, shoot, signIn } from "./support";
import { anonymousPlayer, projectWithKeys } from "./support-players";

/**
 * The Webhooks page: an endpoint is added with grouped event types, its signing secret is shown
 * once, a test event becomes a delivery row (it stays pending here: the dispatcher is not part of
 * this suite's concern); an endpoint disabled for failing shows its owners a banner saying what
 * happened and how to re-enable it; an admin rotates the secret, resends a delivery and replays a
 * time range, each queued and audited. Screenshots: test-results/screenshots/webhooks-*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

/** The suite's embedded Postgres (e2e/dashboard/server.mjs): its port from the pid file, its password from secrets.json. */
async function sql(text: string, values: unknown[]): Promise<void> {
  const port = readFileSync(path.join(E2E_DATA_DIR, "postgres", "postmaster.pid"), "utf8")
    .split("\n")[3]
    ?.trim();
  const { postgresPassword } = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "secrets.json"), "utf8")) as { postgresPassword: string };
  const client = new pg.Client({ host: "127.0.0.1", port: Number(port), user: "postgres", password: postgresPassword, database: "game" });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function addEndpoint(page: Page, url: string, types: string[]): Promise<string> {
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  await dialog.getByLabel("URL").fill(url);
  await dialog.getByLabel("Description (optional)").fill("Discord bot");
  for (const type of types) await dialog.getByLabel(type, { exact: true }).check();
  await dialog.getByRole("button", { name: "Add endpoint" }).click();
  await expect(dialog).toBeHidden();
  const secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
  expect(secret).toMatch(/^whsec_/);
  return secret;
}

test("an added endpoint's secret is shown once; a test event appears as a pending delivery", async ({ page }) => {
  await signIn(page);
  const projectId = await createProject(page, `Hooks ${Date.now()}`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByText("No endpoints yet.")).toBeVisible();

  // Plain sentences for a bad form: no URL, no event type.
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
  await dialog.getByLabel("URL").fill("ftp://hooks.example.com");
  await dialog.getByRole("button", { name: "Add endpoint" }).click();
  await expect(dialog.getByText("Must be an https:// URL without a user name or password.")).toBeVisible();
  await expect(dialog.getByText("Choose at least one event type.")).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await dialog.getByRole("button", { name: "Cancel" }).click();

  const url = `https://hooks.example.com/${Date.now()}`;
  const secret = await addEndpoint(page, url, ["player.created", "purchase.completed"]);
  await expect(page.getByText("Copy the signing secret now: it is shown only once")).toBeVisible();
  const row = page.getByTestId("webhook-endpoint").filter({ hasText: url });
  await expect(row).toContainText("enabled");
  await expect(row).toContainText("player.created, purchase.completed");
  await shoot(page, "webhooks-secret");
  await page.getByRole("button", { name: "Done" }).click();
  await page.reload();
  await expect(page.getByTestId("webhook-endpoint").filter({ hasText: url })).toBeVisible();
  expect(await page.content()).not.toContain(secret);

  await row.getByRole("button", { name: `Send test to ${url}` }).click();
  await expect(page.getByText("Test event queued.")).toBeVisible();
  await row.getByRole("button", { name: `Deliveries of ${url}` }).click();
  const delivery = page.getByTestId("webhook-delivery").filter({ hasText: "webhook.test" });
  await expect(delivery).toBeVisible();
  await expect(delivery).toContainText("pending");
  await delivery.getByRole("button", { name: /^Details of the webhook.test delivery/ }).click();
  const detail = page.getByRole("dialog", { name: "Delivery" });
  await expect(detail.getByRole("region", { name: "Request body" })).toContainText('"type": "webhook.test"');
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "webhooks-delivery");
  expect(page.url()).toContain(projectId);
});

test("an endpoint disabled for failing: a notice on the project's other pages, a banner on Webhooks that says what happened under this instance's settings, and Enable clears both", async ({
  page,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Failing ${Date.now()}`);
  await page.goto(`/projects/${projectId}/webhooks`);
  const url = `https://failing.example.com/${Date.now()}`;
  await addEndpoint(page, url, ["currency.changed"]);
  await page.getByRole("button", { name: "Done" }).click();
  await sql(
    "UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', failing_since = now() - interval '1 day' WHERE project_id = $1 AND url = $2",
    [projectId, url],
  );
  // Every other page of the project says so, with a way there.
  await page.goto(`/projects/${projectId}`);
  const notice = page.getByTestId("webhooks-failing-notice");
  await expect(notice).toContainText(`The webhook endpoint ${url} was turned off because its deliveries kept failing.`);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "webhooks-failing-notice");
  await notice.getByRole("link", { name: "Open Webhooks" }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/webhooks$`));
  await expect(notice).toBeHidden(); // the Webhooks page shows the full banner instead
  const banner = page.getByTestId("webhook-failing-banner");
  await expect(banner).toContainText(`${url} was disabled because its deliveries kept failing`);
  await expect(banner).toContainText("fix the receiver, send a test event, then enable it again");
  await expect(banner).toContainText("the events it subscribes to are still recorded");
  await expect(banner).toContainText("to send what it missed, replay the time range from");
  // The instance's settings (e2e/dashboard/server.mjs), not the defaults.
  await expect(banner).toContainText("is turned off once its first failed attempt since the last success is 3 days old");
  await expect(banner).toContainText("each delivery is tried 8 times over about 28 hours");
  await expect(banner).toContainText("(events are kept for 14 days)");
  await expect(page.getByTestId("webhook-endpoint").filter({ hasText: url })).toContainText("disabled: failing");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "webhooks-failing");
  await banner.getByRole("button", { name: `Enable ${url}` }).click();
  await expect(banner).toBeHidden();
  await expect(page.getByTestId("webhook-endpoint").filter({ hasText: url })).toContainText("enabled");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Overview" }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}$`));
  await expect(page.getByTestId("frame-project-name")).toBeVisible();
  await expect(notice).toBeHidden();
});

test("a viewer sees endpoints and deliveries but no button that changes them", async ({ page, browser }) => {
  await signIn(page);
  const projectId = await createProject(page, `Hook viewer ${Date.now()}`);
  await page.goto(`/projects/${projectId}/webhooks`);
  const url = `https://viewer.example.com/${Date.now()}`;
  await addEndpoint(page, url, ["player.deleted"]);
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByRole("button", { name: `Send test to ${url}` }).click();
  await expect(page.getByText("Test event queued.")).toBeVisible();
  const email = `hook-viewer-${Date.now()}@studio.test`;
  await acceptInvite(browser, await invite(page, projectId, email), "Vic Viewer");

  const context = await browser.newContext();
  const viewer = await context.newPage();
  await signIn(viewer, email, INVITED_PASSWORD);
  await viewer.goto(`/projects/${projectId}/webhooks`);
  const row = viewer.getByTestId("webhook-endpoint").filter({ hasText: url });
  await expect(row).toContainText("enabled");
  await row.getByRole("button", { name: `Deliveries of ${url}` }).click();
  await expect(viewer.getByTestId("webhook-delivery").filter({ hasText: "webhook.test" })).toBeVisible();
  for (const name of ["Add endpoint", "Edit", "Send test", "Rotate secret", "Disable", "Delete", "Replay"])
    await expect(viewer.getByRole("button", { name })).toHaveCount(0);
  await viewer.getByRole("button", { name: /^Details of the webhook.test delivery/ }).click();
  await expect(viewer.getByRole("dialog", { name: "Delivery" }).getByRole("region", { name: "Request body" })).toBeVisible();
  await expect(viewer.getByRole("button", { name: "Resend" })).toHaveCount(0);
  await context.close();
});

test("an admin changes an endpoint's event types and description, and the change is audited", async ({ page }) => {
  await signIn(page);
  const projectId = await createProject(page, `Hook edit ${Date.now()}`);
  await page.goto(`/projects/${projectId}/webhooks`);
  const url = `https://edit.example.com/${Date.now()}`;
  await addEndpoint(page, url, ["player.created"]);
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByRole("button", { name: `Edit ${url}` }).click();
  const dialog = page.getByRole("dialog", { name: "Edit the webhook endpoint" });
  await expect(dialog.getByLabel("player.created", { exact: true })).toBeChecked();
  await dialog.getByLabel("player.created", { exact: true }).uncheck();
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByText("Choose at least one event type.")).toBeVisible();
  await dialog.getByLabel("leaderboard.period_closed", { exact: true }).check();
  await dialog.getByLabel("Description (optional)").fill("Rewards bot");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByTestId("webhook-endpoint").filter({ hasText: url });
  await expect(row).toContainText("leaderboard.period_closed");
  await expect(row).toContainText("Rewards bot");
  await expect(row).not.toContainText("player.created");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "webhook.update" })).toBeVisible();
});

test.describe("an admin's delivery tools", () => {
  // The replay form takes times in the browser's zone; the spec writes them in UTC.
  test.use({ timezoneId: "UTC" });

  test("Rotate secret shows a new secret once; Resend queues one more delivery of the event; Replay queues the range's events; each is audited", async ({
    page,
  }) => {
    const { projectId, clientKey } = await projectWithKeys(page, "Hook tools");
    await page.goto(`/projects/${projectId}/webhooks`);
    const url = `https://tools.example.com/${Date.now()}`;
    const first = await addEndpoint(page, url, ["player.created"]);
    await page.getByRole("button", { name: "Done" }).click();

    await page.getByRole("button", { name: `Rotate secret of ${url}` }).click();
    const confirm = page.getByRole("alertdialog", { name: "Rotate the signing secret?" });
    await expect(confirm).toContainText("the current one keeps signing beside it for 24 hours");
    await confirm.getByRole("button", { name: "Rotate secret" }).click();
    await expect(page.getByText("Rotated the secret.")).toBeVisible();
    const rotated = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(first);
    await page.getByRole("button", { name: "Done" }).click();
    await expect(page.getByTestId("webhook-secret")).toHaveCount(0);

    // Two players: two player.created events, each with one delivery (pending or retrying: the host does not resolve here).
    const started = new Date(Date.now() - 60_000);
    await anonymousPlayer(page.request, clientKey);
    await anonymousPlayer(page.request, clientKey);
    await page.getByRole("button", { name: `Deliveries of ${url}` }).click();
    const rows = page.getByTestId("webhook-delivery").filter({ hasText: "player.created" });
    await expect(async () => {
      await page.getByRole("button", { name: "Refresh" }).click();
      await expect(rows).toHaveCount(2, { timeout: 1_000 });
    }).toPass();

    await rows
      .first()
      .getByRole("button", { name: /^Details of the player.created delivery/ })
      .click();
    const detail = page.getByRole("dialog", { name: "Delivery" });
    await expect(detail.getByRole("region", { name: "Request body" })).toContainText('"type": "player.created"');
    await detail.getByRole("button", { name: "Resend" }).click();
    await expect(page.getByText("Queued a new delivery of this event.")).toBeVisible();
    await expect(detail).toBeHidden();
    await expect(rows).toHaveCount(3);

    // datetime-local in the page's zone (UTC here): from a minute before the players to an hour after.
    const local = (d: Date) => d.toISOString().slice(0, 16);
    await page.getByLabel("From").fill(local(started));
    await page.getByLabel("To (not included)").fill(local(new Date(Date.now() + 3_600_000)));
    await page.getByRole("button", { name: "Replay", exact: true }).click();
    await expect(page.getByText("Queued 2 deliveries.")).toBeVisible();
    await expect(rows).toHaveCount(5);

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Audit log" }).click();
    for (const action of ["webhook.rotate-secret", "webhook.resend", "webhook.replay"])
      await expect(page.getByTestId("audit-row").filter({ hasText: action }), action).toHaveCount(1);
  });
});
