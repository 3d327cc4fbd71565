import { randomBytes } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { upsertOperator } from "@/server/services/operators";
import { appRouter } from "@/server/trpc/router";
import { makeProject } from "../support/fixtures";

/**
 * A replay queues up to 10,000 deliveries; without a cap on how often, an admin's session (or a
 * stolen one) could queue millions an hour at a receiver. Through the dashboard's procedures.
 */
/** REPLAYS_PER_HOUR in server/services/webhooks/schemas.ts. */
const REPLAYS_PER_HOUR = 10;

describe("webhook replays per project", () => {
  it(`(a): past ${REPLAYS_PER_HOUR} replays in an hour a project's next replay is refused (LIMIT_EXCEEDED) and queues nothing`, async () => {
    const { projectId } = await makeProject();
    const email = `replay-${randomBytes(4).toString("hex")}@studio.test`;
    const op = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
    await prisma().projectMember.create({ data: { projectId, operatorId: op.id, role: "ADMIN" } });
    const admin = appRouter.createCaller({ operator: { ...op, isInstanceAdmin: false }, requestId: "replay-cap" });
    const { endpoint } = await admin.webhooks.create({
      projectId,
      endpoint: { url: `https://hooks.example.com/cap-${randomBytes(3).toString("hex")}`, eventTypes: ["player.created"] },
    });
    const range = { from: new Date(Date.now() - 60_000).toISOString(), to: new Date().toISOString() };
    for (let i = 0; i < REPLAYS_PER_HOUR; i++) await admin.webhooks.replay({ projectId, endpointId: endpoint.id, range });
    const refused = await admin.webhooks.replay({ projectId, endpointId: endpoint.id, range }).then(
      () => null,
      (error: unknown) => (error instanceof TRPCError ? (error.cause as { code?: string } | undefined)?.code : String(error)),
    );
    expect(refused).toBe("LIMIT_EXCEEDED");
    expect(await prisma().auditEntry.count({ where: { projectId, action: "webhook.replay" } })).toBe(REPLAYS_PER_HOUR);
  }, 60_000);
});
