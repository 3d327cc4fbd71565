import { describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import { pruneAuthTables } from "@/server/maintenance";
import { anonymousPlayer, makeProject } from "../support/fixtures";

describe("auth table housekeeping", () => {
  it("deletes sessions ended over a week ago and used refresh tokens over a week old, and nothing live", async () => {
    const project = await makeProject();
    const [expired, revoked, live, rotated] = await Promise.all([1, 2, 3, 4].map(() => anonymousPlayer(project.clientKey)));
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    await prisma().session.updateMany({ where: { playerId: expired?.playerId }, data: { expiresAt: eightDaysAgo } });
    await prisma().session.updateMany({ where: { playerId: revoked?.playerId }, data: { revokedAt: eightDaysAgo } });
    await prisma().refreshToken.updateMany({ where: { session: { playerId: rotated?.playerId } }, data: { usedAt: eightDaysAgo } });
    await prisma().session.updateMany({ where: { playerId: live?.playerId }, data: { revokedAt: sixDaysAgo } });

    await pruneAuthTables();

    const left = async (playerId: string | undefined) => prisma().session.count({ where: { playerId } });
    expect(await left(expired?.playerId)).toBe(0);
    expect(await left(revoked?.playerId)).toBe(0);
    expect(await left(live?.playerId)).toBe(1);
    expect(await left(rotated?.playerId)).toBe(1);
    expect(await prisma().refreshToken.count({ where: { session: { playerId: rotated?.playerId } } })).toBe(0);
    expect(await prisma().refreshToken.count({ where: { session: { playerId: live?.playerId } } })).toBe(1);
  });

  it("runs on one instance at a time: skips while another holds the lock, and holds none after it (transaction-scoped, pooler-safe)", async () => {
    const project = await makeProject();
    const expired = await anonymousPlayer(project.clientKey);
    await prisma().session.updateMany({
      where: { playerId: expired.playerId },
      data: { expiresAt: new Date(Date.now() - 8 * 86_400_000) },
    });
    const left = () => prisma().session.count({ where: { playerId: expired.playerId } });
    const other = await pool().connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT pg_advisory_xact_lock(72707370)");
      expect(await pruneAuthTables()).toEqual({ sessions: 0, refreshTokens: 0 });
      expect(await left()).toBe(1);
      await other.query("COMMIT");
    } finally {
      other.release();
    }
    await pruneAuthTables();
    expect(await left()).toBe(0);
    const { rows } = await pool().query("SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND objid = 72707370");
    expect(rows[0]?.held).toBe(0);
  });
});
