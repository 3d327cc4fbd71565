import { expect, test } from "@playwright/test";
import { createKey, createProject, seriousAxeFindings, shoot, signIn } from "./support";

/**
 * Players' e-mail in the dashboard, on an app without SMTP_URL: a registration's verification
 * message lands in the outbox, its text (code masked) readable on the E-mail page; from the player page an operator sends
 * a reset code (audited). Screenshots: test-results/screenshots/email-*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

test("without SMTP the verification mail waits in the outbox, its code masked; an operator sends a reset code from the player page", async ({
  page,
  request,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Mail ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  const clientKey = await createKey(page, "CLIENT", "mail build");
  const email = `mail-${Date.now()}@example.com`;
  const registered = await request.post("/api/v1/auth/email/register", {
    headers: { "X-API-Key": clientKey },
    data: { email, password: "a long and unusual passphrase" },
  });
  expect(registered.status()).toBe(200);
  const { playerId } = (await registered.json()) as { playerId: string };

  await page.getByRole("link", { name: "E-mail", exact: true }).click();
  await expect(page.getByText("No mail server is configured (SMTP_URL)")).toBeVisible();
  // Delivery is a job: the page refetches until it has run.
  const row = page.getByTestId("email-row").filter({ hasText: email });
  await expect(row).toContainText("outbox", { timeout: 20_000 });
  await expect(row).toContainText("confirm your e-mail address");
  await row.getByRole("button", { name: "Show text" }).click();
  await expect(row.locator("pre")).toContainText("••••••");
  await expect(row.locator("pre")).not.toContainText(/\b\d{6}\b/);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "email-outbox");

  await page.goto(`/projects/${projectId}/players/${playerId}`);
  await expect(page.getByTestId("player-email")).toContainText("not verified");
  await shoot(page, "email-player-actions");
  await page.getByRole("button", { name: "Send reset code" }).click();
  await expect(page.getByText(`A reset code is on its way to ${email}.`)).toBeVisible();
  await page.getByRole("link", { name: "E-mail", exact: true }).click();
  await expect(page.getByTestId("email-row").filter({ hasText: "password reset code" })).toContainText("outbox", { timeout: 20_000 });
  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "player.send-reset-code" })).toBeVisible();
});

test("an admin sets the sender and requires verified addresses: new mail comes from that sender, an unverified sign-in is refused, and the change is audited", async ({
  page,
  request,
}) => {
  await signIn(page);
  await createProject(page, `Sender ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  const clientKey = await createKey(page, "CLIENT", "sender build");
  await page.getByRole("link", { name: "E-mail", exact: true }).click();
  const form = page.getByRole("form", { name: "E-mail settings" });
  await expect(form.getByLabel("Sender address")).toHaveAttribute("placeholder", /@/);

  await form.getByLabel("Sender address").fill("not an address");
  await form.getByRole("button", { name: "Save e-mail settings" }).click();
  await expect(form.getByText("Enter an e-mail address, such as game@studio.com.")).toBeVisible();

  await form.getByLabel("Sender name").fill("Coin Cascade Support");
  await form.getByLabel("Sender address").fill("support@coincascade.test");
  await form.getByLabel(/must verify their e-mail address/).check();
  await form.getByRole("button", { name: "Save e-mail settings" }).click();
  await expect(page.getByText("E-mail settings saved. New messages use them.")).toBeVisible();
  await shoot(page, "email-settings");
  await page.reload();
  await expect(form.getByLabel("Sender name")).toHaveValue("Coin Cascade Support");
  await expect(form.getByLabel(/must verify their e-mail address/)).toBeChecked();

  const email = `sender-${Date.now()}@example.com`;
  const password = "a long and unusual passphrase";
  const registered = await request.post("/api/v1/auth/email/register", { headers: { "X-API-Key": clientKey }, data: { email, password } });
  expect(registered.status()).toBe(200);
  const login = await request.post("/api/v1/auth/email/login", { headers: { "X-API-Key": clientKey }, data: { email, password } });
  expect([login.status(), ((await login.json()) as { error: { code: string } }).error.code]).toEqual([403, "EMAIL_NOT_VERIFIED"]);

  const row = page.getByTestId("email-row").filter({ hasText: email });
  await expect(row).toContainText("outbox", { timeout: 20_000 });
  await row.getByRole("button", { name: "Show text" }).click();
  await expect(row.locator("pre")).toContainText("From: Coin Cascade Support <support@coincascade.test>");

  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByTestId("audit-row").filter({ hasText: "project.email-settings" })).toBeVisible();
});
