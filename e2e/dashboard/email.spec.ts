import { expect, test } from "@playwright/test";
import { createKey, createProject, seriousAxeFindings, shoot, signIn } from "./support";

/**
 * Players' e-mail in the dashboard, on an app without SMTP_URL: a registration's verification
 * code lands in the outbox, readable on the E-mail page; from the player page an operator sends
 * a reset code (audited). Screenshots: test-results/screenshots/email-*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

test("without SMTP the verification mail waits in the outbox with its code; an operator sends a reset code from the player page", async ({
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
  await row.getByText("Show").click();
  await expect(row.locator("pre")).toContainText(/\b\d{6}\b/);
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
