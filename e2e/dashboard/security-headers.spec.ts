import { expect, type Page, test } from "@playwright/test";
import { openProject, signInWithForm } from "./support";

/**
 * Every page is served with a nonce-based Content-Security-Policy and the other browser security
 * headers (proxy.ts), and nothing the dashboard or the sample game loads is blocked by it.
 */
function recordViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

test("the sign-in page's CSP has a fresh nonce for scripts, no unsafe-inline scripts, and forbids framing", async ({ page }) => {
  const first = await page.goto("/login");
  const again = await page.request.get("/login");
  const csp = first?.headers()["content-security-policy"] ?? "";
  const scripts = csp.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
  expect(scripts).toMatch(/'nonce-[A-Za-z0-9+/=]{20,}'/);
  expect(scripts).not.toContain("unsafe-inline");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(again.headers()["content-security-policy"]).not.toBe(csp); // a new nonce per response
  expect(first?.headers()).toMatchObject({
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "strict-origin-when-cross-origin",
  });
  expect(first?.headers()["permissions-policy"]).toContain("camera=()");
  expect(first?.headers()["strict-transport-security"]).toBeUndefined(); // plain HTTP here
});

test("the proxy does not run on the API: a game API answer carries no page CSP", async ({ page }) => {
  const api = await page.request.get("/api/v1/openapi.json");
  expect(api.status()).toBe(200);
  expect(api.headers()["content-security-policy"]).toBeUndefined();
});

test("signing in, the projects page, a project and the sample game run with no CSP violation", async ({ page }) => {
  const violations = recordViolations(page);
  await signInWithForm(page);
  await openProject(page, "Demo Game");
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}/);
  await page.goto("/play");
  // The guest sign-in is the game's script and the SDK at work: a player id means nothing was blocked.
  await expect(page.getByTestId("player-id")).toHaveText(/^[0-9a-f-]{36}$/);
  expect(violations).toEqual([]);
});
