import { randomBytes } from "node:crypto";
import type { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import { env } from "@/server/env";
import type { SessionOperator } from "@/server/identity/operator";
import { exportAs } from "@/server/services/exports";
import { api } from "../support/api";
import { makeProject, type TestProject } from "../support/fixtures";
import { until } from "../support/launch.mjs";
import { caller, ctx, newOperator } from "../support/operators";

/**
 * One-time codes and players' addresses on the operator side, on the suite's app (no SMTP_URL:
 * messages wait in the outbox). A code is in no operator's reach, whatever the role; addresses
 * follow one rule (`mayReadPlayerEmails`): admins and owners read them, viewers see them masked.
 */
const appCodeOf = async (call: Promise<unknown>) =>
  call.then(
    () => "passed",
    (error: unknown) => ((error as TRPCError).cause as { code?: string } | undefined)?.code ?? (error as { code?: string }).code ?? "",
  );

let project: TestProject;
let viewer: SessionOperator;
let admin: SessionOperator;
const PASSWORD = "the victim's long passphrase";
const newEmail = () => `victim-${randomBytes(4).toString("hex")}@example.com`;

beforeAll(async () => {
  project = await makeProject();
  viewer = await newOperator("VIEWER", project.projectId);
  admin = await newOperator("ADMIN", project.projectId);
  // Reset codes go to unverified addresses too: the victim needs no verified mailbox for the attack.
  await prisma().project.update({ where: { id: project.projectId }, data: { resetUnverifiedEmail: true } });
});

async function registered(email = newEmail()) {
  const res = await api<{ playerId: string; accessToken: string }>("POST", "/api/v1/auth/email/register", {
    key: project.clientKey,
    body: { email, password: PASSWORD },
  });
  expect(res.status).toBe(200);
  return { email, playerId: res.body.playerId };
}

const outbox = (email: string, template: string) =>
  until(`the ${template} message in the outbox`, async () => {
    const { rows } = await pool().query<{ id: string; text: string; html: string }>(
      "SELECT id, text, html FROM email_messages WHERE to_address = $1 AND template = $2 AND status = 'OUTBOX'",
      [email, template],
    );
    return rows[0];
  });

const sixDigits = (x: unknown) => [...new Set(JSON.stringify(x).match(/\b\d{6}\b/g) ?? [])];

/** Every six-digit number in what `op` can read of the project's mail: the list, then each message opened. */
async function codesReadableBy(op: SessionOperator): Promise<{ listed: string[]; opened: string[] }> {
  const list = await caller(op).email.list({ projectId: project.projectId, limit: 100 });
  const listed = sixDigits(list);
  if (listed.length > 0) return { listed, opened: [] };
  const opened = await Promise.all(list.messages.map((m) => caller(op).email.open({ projectId: project.projectId, id: m.id })));
  return { listed, opened: sixDigits(opened) };
}

describe("codes", () => {
  it("High: a viewer cannot read a reset code in the e-mail log", async () => {
    const victim = await registered();
    // The attacker holds only the public client key, and a viewer's seat on the dashboard.
    const asked = await api("POST", "/api/v1/auth/email/password-reset", { key: project.clientKey, body: { email: victim.email } });
    expect(asked.status).toBe(202);
    await outbox(victim.email, "password_reset");
    const readable = await codesReadableBy(viewer);
    const taken: number[] = [];
    for (const code of [...readable.listed, ...readable.opened]) {
      const res = await api("POST", "/api/v1/auth/email/password-reset/confirm", {
        key: project.clientKey,
        body: { email: victim.email, code, password: "the attacker's new password" },
      });
      taken.push(res.status);
    }
    expect(taken.filter((s) => s === 200)).toEqual([]);
    const login = await api("POST", "/api/v1/auth/email/login", {
      key: project.clientKey,
      body: { email: victim.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
  }, 120_000);

  it("no role reads a code: the stored message holds it masked, and the sealed code is wiped once in the outbox", async () => {
    const { email } = await registered();
    const row = await outbox(email, "email_verification");
    expect(row.text).toContain("\n    ••••••\n");
    expect(row.html).toContain(">••••••</p>");
    expect(`${row.text}${row.html}`).not.toMatch(/\b\d{6}\b/);
    const sealed = await pool().query("SELECT code_sealed FROM email_messages WHERE id = $1", [row.id]);
    expect(sealed.rows).toEqual([{ code_sealed: null }]);
    expect(await codesReadableBy(admin)).toEqual({ listed: [], opened: [] });
    expect(await codesReadableBy(await newOperator("OWNER", project.projectId))).toEqual({ listed: [], opened: [] });
  });

  it("opening a message is audited as email.open, naming the operator and the message", async () => {
    const { email } = await registered();
    const row = await outbox(email, "email_verification");
    const opened = await caller(viewer).email.open({ projectId: project.projectId, id: row.id });
    expect(opened.text).toContain("••••••");
    const { rows } = await pool().query<{ operator_id: string; target: string }>(
      "SELECT operator_id, target FROM audit_log WHERE project_id = $1 AND action = 'email.open' AND target = $2",
      [project.projectId, row.id],
    );
    expect(rows).toEqual([{ operator_id: viewer.id, target: row.id }]);
  });
});

describe("players' addresses, one rule for every read", () => {
  it("a viewer sees addresses masked in the e-mail log, player search and a player's page; an admin reads them", async () => {
    const { email, playerId } = await registered();
    await outbox(email, "email_verification");
    const masked = `${email.slice(0, 1)}•••@example.com`;
    const seen = async (op: SessionOperator) => {
      const log = await caller(op).email.list({ projectId: project.projectId, limit: 100 });
      const search = await caller(op).players.search({
        projectId: project.projectId,
        query: playerId,
        banned: "any",
        email: "any",
        limit: 10,
        offset: 0,
        sort: "newest",
      });
      const detail = await caller(op).players.get({ projectId: project.projectId, playerId });
      return [log.messages.find((m) => m.playerId === playerId)?.to, search.players[0]?.email, detail.email];
    };
    expect(await seen(viewer)).toEqual([masked, masked, masked]);
    expect(await seen(admin)).toEqual([email, email, email]);
  });

  it("a viewer's search matches a whole address, never a prefix of one (which would spell out the masked address)", async () => {
    const { email } = await registered();
    const search = (query: string) =>
      caller(viewer).players.search({
        projectId: project.projectId,
        query,
        banned: "any",
        email: "any",
        limit: 10,
        offset: 0,
        sort: "newest",
      });
    expect((await search(email.slice(0, 10))).players).toEqual([]);
    expect((await search(email)).players).toHaveLength(1);
  });

  it("the players export holds addresses for admins; viewers may not export players", async () => {
    const { email } = await registered();
    const exported = await exportAs(ctx(admin), { projectId: project.projectId, kind: "players", query: { format: "csv" } });
    expect(await new Response(exported.stream).text()).toContain(email);
    expect(await appCodeOf(exportAs(ctx(viewer), { projectId: project.projectId, kind: "players", query: { format: "csv" } }))).toBe(
      "FORBIDDEN",
    );
  });
});

describe("sender domains", () => {
  it("L6: with EMAIL_FROM_DOMAINS set, a sender address at another domain is refused with VALIDATION_ERROR and changes nothing", async () => {
    const owner = await newOperator("OWNER", project.projectId);
    const settings = { projectId: project.projectId, fromName: null, requireVerifiedEmail: false, resetUnverifiedEmail: true };
    // This process's environment (the instance setting the service reads), set for this test only.
    env().EMAIL_FROM_DOMAINS.push("studio.test");
    try {
      const refused = caller(owner).email.setSettings({ ...settings, fromAddress: "ceo@bank.example" });
      await expect(refused).rejects.toThrow("The sender address must be at studio.test (this instance's EMAIL_FROM_DOMAINS).");
      expect(await appCodeOf(caller(owner).email.setSettings({ ...settings, fromAddress: "ceo@bank.example" }))).toBe("VALIDATION_ERROR");
      expect((await caller(owner).email.settings({ projectId: project.projectId })).fromAddress).toBeNull();
      const saved = await caller(owner).email.setSettings({ ...settings, fromAddress: "game@STUDIO.test" });
      expect(saved.fromAddress?.toLowerCase()).toBe("game@studio.test");
    } finally {
      env().EMAIL_FROM_DOMAINS.splice(0);
    }
  });
});
