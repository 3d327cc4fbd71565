import { expect, test } from "@playwright/test";
import { acceptInvite, createProject, demo, INVITED_PASSWORD, invite, signIn } from "./support";

/**
 * Roles in the browser: an owner invites a viewer by e-mail (one-time link), the viewer sees the
 * project but no controls and the server refuses a forged mutation; an operator of another
 * project cannot see it at all; an invite link works once.
 */
test("an invited viewer sees but cannot change; another project's operator cannot see; invite links work once", async ({
  page,
  browser,
}) => {
  const stamp = Date.now();
  await signIn(page, demo().operatorEmail, demo().operatorPassword);
  const projectId = await createProject(page, `Roles ${stamp}`);
  const viewerEmail = `viewer-${stamp}@studio.test`;
  const link = await invite(page, projectId, viewerEmail);
  expect(link).toMatch(/\/invite\/[\w-]{20,}$/);
  await page.goto("/projects");
  const otherId = await createProject(page, `Other ${stamp}`);
  const outsiderEmail = `outsider-${stamp}@studio.test`;
  const otherLink = await invite(page, otherId, outsiderEmail);
  await expect(page.getByRole("cell", { name: outsiderEmail, exact: true })).toBeVisible();

  await acceptInvite(browser, link, "Vera Viewer");
  await acceptInvite(browser, otherLink, "Otto Outsider");

  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await signIn(viewer, viewerEmail, INVITED_PASSWORD);
  await expect(viewer.getByRole("link", { name: `Roles ${stamp}` })).toBeVisible();
  await expect(viewer.getByRole("link", { name: `Other ${stamp}` })).toHaveCount(0);
  await viewer.goto(`/projects/${projectId}/keys`);
  await expect(viewer.getByRole("heading", { name: "Keys", exact: true })).toBeVisible();
  await expect(viewer.getByRole("button", { name: "Create key" })).toHaveCount(0);
  const forged = await viewer.request.post("/api/trpc/projects.createKey", {
    data: { projectId, kind: "SERVER", name: "forged" },
    headers: { Origin: new URL(viewer.url()).origin },
  });
  expect(forged.status()).toBe(403);
  await viewer.goto(`/projects/${projectId}/members`);
  await expect(viewer.getByRole("cell", { name: viewerEmail, exact: true })).toBeVisible();
  await expect(viewer.getByLabel("Member e-mail")).toHaveCount(0);
  await viewerContext.close();

  const outsiderContext = await browser.newContext();
  const outsider = await outsiderContext.newPage();
  await signIn(outsider, outsiderEmail, INVITED_PASSWORD);
  await outsider.goto(`/projects/${projectId}`);
  await expect(outsider.getByRole("heading", { name: "Project not found" })).toBeVisible();
  const peek = await outsider.request.get(`/api/trpc/projects.get?input=${encodeURIComponent(JSON.stringify({ projectId }))}`);
  expect(peek.status()).toBe(404);
  await outsiderContext.close();

  await page.goto(`/projects/${projectId}/audit`);
  await expect(page.getByTestId("audit-row").filter({ hasText: "member.invite" })).toHaveCount(1);
});
