import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, type Cookie, expect, type Page } from "@playwright/test";
import { E2E_DATA_DIR } from "../../playwright.config";

/** What every dashboard spec needs: the seeded operator, sign-in, screenshots, keys and projects. */
type Demo = { operatorEmail: string; operatorPassword: string };
export const demo = (): Demo => JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "demo.json"), "utf8")) as Demo;

const SHOTS = path.join(import.meta.dirname, "../../test-results/screenshots");

/** Toasts are hidden while a screenshot is taken: they would cover the page's bottom-right corner. */
const NO_TOASTS = "[data-sonner-toaster] { display: none !important; }";

/**
 * With SCREENSHOTS=1 (`npm run e2e:screenshots`), a full-page screenshot at the page's size and one
 * at a phone's (390 × 844); otherwise nothing. They are for a person to look at and assert nothing,
 * and in `npm test` their 236 full-page captures and relayouts were Chromium CPU on a CPU-bound run.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== "1") return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, style: NO_TOASTS });
  const wide = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  // Charts follow the new width on their ResizeObserver's next callback: until then the page is still as wide as before.
  await page.waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, null, { timeout: 5_000 }).catch(() => {});
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true, style: NO_TOASTS });
  if (wide) await page.setViewportSize(wide);
}

/** Signs in through the real form (the seeded operator unless told otherwise); lands on Projects. */
export async function signInWithForm(page: Page, email = demo().operatorEmail, password = demo().operatorPassword): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Projects", exact: true })).toBeVisible();
}

/** Each operator's session cookies from their first sign-in in this worker, by e-mail. */
const sessions = new Map<string, Cookie[]>();

/**
 * Signed in as the operator (the seeded one unless told otherwise), on Projects. The first time
 * in a worker through the form; after that the page's fresh context gets that session's cookies
 * (a form sign-in is two page loads and a password hash, over a second of CPU, 50 times in the
 * suite). A session that no longer works (signed out, revoked, operator removed) lands on the
 * form, and the form is used again. Specs about signing in itself use signInWithForm.
 */
export async function signIn(page: Page, email = demo().operatorEmail, password = demo().operatorPassword): Promise<void> {
  const saved = sessions.get(email);
  if (saved) {
    await page.context().addCookies(saved);
    await page.goto("/projects");
    const projects = page.getByRole("heading", { name: "Projects", exact: true });
    await projects.or(page.getByLabel("E-mail")).first().waitFor();
    if (await projects.isVisible()) return;
    sessions.delete(email);
    await page.context().clearCookies();
  }
  await signInWithForm(page, email, password);
  sessions.set(email, await page.context().cookies());
}

/** On the projects page: creates a project (which opens it) and returns its id. */
export async function createProject(page: Page, name: string): Promise<string> {
  await page.getByLabel("Project name").fill(name);
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("project-name")).toHaveText(name);
  return page.url().split("/projects/")[1] ?? "";
}

/** On a project's API keys page: creates a key and returns its secret (shown once). */
export async function createKey(page: Page, kind: "CLIENT" | "SERVER", name: string): Promise<string> {
  await page.getByLabel("Key kind").click(); // a Radix Select: a combobox and a listbox of options
  await page.getByRole("option", { name: kind === "CLIENT" ? /^Client/ : /^Server/ }).click();
  await page.getByLabel("Key name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("new-key").textContent()) ?? "";
  expect(secret).toMatch(kind === "CLIENT" ? /^gb_client_/ : /^gb_server_/);
  await page.getByRole("button", { name: "Done" }).click();
  return secret;
}

export const INVITED_PASSWORD = "a long unusual operator passphrase 31";

/** An owner adds an e-mail without an account as a viewer; answers the one-time invite link. */
export async function invite(page: Page, projectId: string, email: string): Promise<string> {
  await page.goto(`/projects/${projectId}/members`);
  // The list loaded first: an Add sent while the first list read is in flight can be answered by
  // that read (without the new invite) on a busy machine.
  await expect(page.getByRole("table").first()).toBeVisible();
  await page.getByLabel("Member e-mail").fill(email);
  await page.getByLabel("Member role").click(); // a Radix Select
  await page.getByRole("option", { name: /^Viewer/ }).click();
  await page.getByRole("button", { name: "Add" }).click();
  // The dashboard's server has no SMTP_URL: it says so, and the link is the only way (e2e/api/invite-email.test.ts mails it).
  await expect(page.getByTestId("invite-sent")).toContainText("no mail server");
  return (await page.getByTestId("invite-link").textContent()) ?? "";
}

/**
 * Uses an invite link in a fresh browser context: the new operator is signed in and lands on the
 * project (then checks the link works only once).
 */
export async function acceptInvite(browser: Browser, link: string, name: string): Promise<void> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await page.getByLabel("Your name").fill(name);
  await expect(page.getByText(/^8 to 128 characters/)).toBeVisible(); // the rules before the first refusal
  await page.getByLabel("Choose a password").fill(INVITED_PASSWORD);
  await page.getByRole("button", { name: "Create my account" }).click();
  await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("project-name")).toBeVisible();
  await page.goto(link);
  await expect(page.getByText("This invite link was used, revoked or has expired.")).toBeVisible();
  await context.close();
}

/**
 * axe-core's serious and critical WCAG 2 A/AA findings on the page as it is now, as
 * "rule: target" lines (empty when clean), so a failure names what to fix. Toasts are left out:
 * measured mid-fade, their half-transparent text fails contrast checks it passes when shown.
 * `label-content-name-mismatch` (WCAG 2.5.3, label in name: a control's accessible name contains
 * its visible text, so voice users can say what they see) is experimental in axe and off by default: on here.
 */
/**
 * Waits until nothing on the page says it is loading (every `State kind="loading"` is a
 * `role=status` that starts with "Loading"). Cards that load change height, so a control below
 * them moves; open a menu only once they have settled, or it opens where the control was.
 */
export async function settled(page: Page): Promise<void> {
  await expect(page.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0, { timeout: 30_000 });
}

export async function seriousAxeFindings(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .options({ rules: { "label-content-name-mismatch": { enabled: true } } })
    .exclude("[data-sonner-toaster]")
    .analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
}

/**
 * On the projects page: opens the project named `name` by its link's address and waits for its
 * frame. Clicking the link can land on a neighbour: with the many projects a full run creates, the
 * list may re-render (sorted, refetched) between finding the link and the click.
 */
export async function openProject(page: Page, name: string): Promise<string> {
  const href = await page.getByRole("link", { name, exact: true }).getAttribute("href");
  if (!href) throw new Error(`no link to the project ${name}`);
  await page.goto(href);
  await expect(page.getByTestId("frame-project-name")).toHaveText(name);
  return href;
}
