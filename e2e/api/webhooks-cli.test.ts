import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { upsertOperator } from "@/server/services/operators";
import { cli } from "../support/cli";
import { makeProject } from "../support/fixtures";

/** `npm run admin -- webhooks …` against the app: the dashboard's procedures, secrets printed only by create and rotate. */

async function ok<T>(args: string[], token: string): Promise<T> {
  const r = await cli(args, token);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

let projectId = "";
let adminToken = "";
let viewerToken = "";
beforeAll(async () => {
  projectId = (await makeProject()).projectId;
  const op = async (role: "ADMIN" | "VIEWER") => {
    const email = `whcli-${randomBytes(4).toString("hex")}@studio.test`;
    const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
    await prisma().projectMember.create({ data: { projectId, operatorId: created.id, role } });
    return (
      await createOperatorToken({
        operator: { ...created, isInstanceAdmin: false },
        name: "cli",
        role,
        projectIds: [projectId],
        instanceAdmin: false,
      })
    ).token;
  };
  adminToken = await op("ADMIN");
  viewerToken = await op("VIEWER");
});

describe("npm run admin -- webhooks", () => {
  it("creates (printing the secret), lists (without it), updates, tests, lists deliveries, resends, replays, rotates and deletes", async () => {
    const url = `https://hooks.example.com/cli-${randomBytes(3).toString("hex")}`;
    const p = ["--project", projectId];
    const created = await ok<{ endpoint: { id: string }; secret: string }>(
      ["webhooks", "create", ...p, "--endpoint-url", url, "--events", "player.created, purchase.completed", "--description", "CRM"],
      adminToken,
    );
    expect(created.secret).toMatch(/^whsec_/);
    const e = ["--endpoint", created.endpoint.id];
    const listed = await cli(["webhooks", "list", ...p], viewerToken);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(url);
    expect(listed.stdout).not.toMatch(/whsec_/);
    expect(await ok(["webhooks", "update", ...p, ...e, "--disable"], adminToken)).toMatchObject({
      enabled: false,
      disabledReason: "operator",
    });
    const test = await ok<{ eventId: string }>(["webhooks", "test", ...p, ...e], adminToken);
    const page = await ok<{ deliveries: Array<{ id: string; eventId: string; status: string }> }>(
      ["webhooks", "deliveries", ...p, ...e, "--status", "pending"],
      viewerToken,
    );
    expect(page.deliveries.map((d) => [d.eventId, d.status])).toEqual([[test.eventId, "PENDING"]]);
    const resent = await ok<{ deliveryId: string }>(["webhooks", "resend", ...p, "--delivery", page.deliveries[0]?.id ?? ""], adminToken);
    expect(resent.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    const now = Date.now();
    const replay = await ok<{ count: number }>(
      ["webhooks", "replay", ...p, ...e, "--from", new Date(now - 3_600_000).toISOString(), "--to", new Date(now + 60_000).toISOString()],
      adminToken,
    );
    expect(replay).toEqual({ count: 0 }); // the test event is not a subscribed type
    const rotated = await ok<{ secret: string; endpoint: { previousSecretUntil: string | null } }>(
      ["webhooks", "rotate", ...p, ...e, "--overlap-hours", "2"],
      adminToken,
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.endpoint.previousSecretUntil ?? "") - now).toBeGreaterThan(3_600_000);
    expect(await ok(["webhooks", "delete", ...p, ...e], adminToken)).toEqual({ deleted: created.endpoint.id });
    expect(await prisma().webhookEndpoint.count({ where: { projectId } })).toBe(0);
  });

  it("errors are JSON on stderr: a viewer's change is forbidden, a bad event type is invalid, a missing option is a usage error", async () => {
    const p = ["--project", projectId];
    const url = `https://hooks.example.com/cli-${randomBytes(3).toString("hex")}`;
    const viewer = await cli(["webhooks", "create", ...p, "--endpoint-url", url, "--events", "player.created"], viewerToken);
    expect(viewer.code).toBe(1);
    expect(JSON.parse(viewer.stderr)).toMatchObject({ error: { code: "FORBIDDEN" } });
    const bad = await cli(["webhooks", "create", ...p, "--endpoint-url", url, "--events", "player.exploded"], adminToken);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
    const usage = await cli(["webhooks", "rotate", ...p], adminToken);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toMatchObject({ error: { code: "USAGE", message: "--endpoint is required." } });
    expect(await prisma().webhookEndpoint.count({ where: { projectId } })).toBe(0);
  });
});
