import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { pool, prisma, transaction } from "@/server/db";
import { makeProject, type TestProject } from "../support/fixtures";

/** Reads through a connection of its own: what other requests see. */
async function fromOutside(sql: string, values: unknown[]): Promise<number> {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  await client.connect();
  try {
    return (await client.query(sql, values)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

const playersNamed = (projectId: string, name: string) =>
  fromOutside("SELECT 1 FROM players WHERE project_id = $1 AND display_name = $2", [projectId, name]);

describe("transaction(): one transaction for raw SQL and Prisma", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await makeProject();
  });

  it("rolls back a Prisma write, a nested Prisma create and a raw statement together when the work throws", async () => {
    const refused = transaction(async (client) => {
      await prisma().player.create({ data: { projectId: project.projectId, displayName: "rolled-back-1" }, select: { id: true } });
      await prisma().player.create({
        data: {
          projectId: project.projectId,
          displayName: "rolled-back-2",
          identities: { create: { projectId: project.projectId, provider: "p", subject: "s-rolled-back" } },
        },
        select: { id: true },
      });
      await client.query(
        "INSERT INTO players (id, project_id, display_name, updated_at) VALUES (gen_random_uuid(), $1, 'rolled-back-3', now())",
        [project.projectId],
      );
      throw new Error("refused after the writes");
    });
    await expect(refused).rejects.toThrow("refused after the writes");
    for (const name of ["rolled-back-1", "rolled-back-2", "rolled-back-3"]) expect(await playersNamed(project.projectId, name)).toBe(0);
    expect(await fromOutside("SELECT 1 FROM identities WHERE subject = 's-rolled-back'", [])).toBe(0);
  });

  it("lets Prisma see the transaction's own uncommitted rows, hides them from other connections until COMMIT", async () => {
    let seenOutsideBeforeCommit = -1;
    await transaction(async (client) => {
      await client.query(
        "INSERT INTO players (id, project_id, display_name, updated_at) VALUES (gen_random_uuid(), $1, 'committed', now())",
        [project.projectId],
      );
      expect(await prisma().player.count({ where: { projectId: project.projectId, displayName: "committed" } })).toBe(1);
      expect(
        (await pool().query("SELECT 1 FROM players WHERE display_name = 'committed' AND project_id = $1", [project.projectId])).rowCount,
      ).toBe(1);
      seenOutsideBeforeCommit = await playersNamed(project.projectId, "committed");
    });
    expect(seenOutsideBeforeCommit).toBe(0);
    expect(await playersNamed(project.projectId, "committed")).toBe(1);
  });

  it("runs a nested transaction() as a savepoint: its failure rolls back only its own writes", async () => {
    await transaction(async () => {
      await prisma().player.create({ data: { projectId: project.projectId, displayName: "outer" }, select: { id: true } });
      await transaction(async () => {
        await prisma().player.create({ data: { projectId: project.projectId, displayName: "inner" }, select: { id: true } });
        throw new Error("inner refused");
      }).catch(() => undefined);
    });
    expect(await playersNamed(project.projectId, "outer")).toBe(1);
    expect(await playersNamed(project.projectId, "inner")).toBe(0);
  });

  it("leaves Prisma calls outside any transaction on the pool, in parallel with an open one", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const open = transaction(async () => {
      await prisma().player.create({ data: { projectId: project.projectId, displayName: "held-open" }, select: { id: true } });
      await held;
    });
    // Not in the transaction's call chain: autocommitted at once, and it does not see the open write.
    await prisma().player.create({ data: { projectId: project.projectId, displayName: "autocommitted" }, select: { id: true } });
    expect(await playersNamed(project.projectId, "autocommitted")).toBe(1);
    expect(await prisma().player.count({ where: { projectId: project.projectId, displayName: "held-open" } })).toBe(0);
    release();
    await open;
    expect(await playersNamed(project.projectId, "held-open")).toBe(1);
  });
});
