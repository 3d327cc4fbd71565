import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { applyImportAs, dryRunImportAs, exportConfigAs } from "@/server/services/config";
import { anonymousPlayer, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperator, refusalCode, trpcRefusal } from "../support/operators";
import { COLOR_TEST, experimentOnKey, ownedProject } from "../support/remote-config";

/**
 * The operators' side of remote config through the tRPC router as the dashboard calls it: keys,
 * overrides, audiences and experiments changed with a reason that lands in the audit row with
 * what was there before and after, each change bumping the project's config version; viewers
 * read and preview but change nothing; the configuration document carries all of it.
 */

type Setup = { project: TestProject; owner: SessionOperator; viewer: SessionOperator };
const reason = "launch week tuning";

async function setup(): Promise<Setup> {
  const { project, owner } = await ownedProject();
  return { project, owner, viewer: await newOperator("VIEWER", project.projectId) };
}
const rcOf = (o: SessionOperator) => caller(o).remoteConfig;
const versionOf = async (projectId: string) =>
  (await pool().query<{ v: number }>("SELECT remote_config_version AS v FROM projects WHERE id = $1", [projectId])).rows[0]?.v;
const audit = (projectId: string, action: string) => prisma().auditEntry.findMany({ where: { projectId, action }, orderBy: { id: "asc" } });

describe("keys and overrides", () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });

  it("upserting a key is audited with the reason, before and after, and bumps the version", async () => {
    const projectId = s.project.projectId;
    const v0 = await versionOf(projectId);
    await rcOf(s.owner).upsertKey({ projectId, key: "shop.discount", type: "number", defaultValue: 0, description: "Discount", reason });
    await rcOf(s.owner).upsertKey({
      projectId,
      key: "shop.discount",
      type: "number",
      defaultValue: 10,
      description: "Discount",
      reason: "sale",
    });
    expect(await versionOf(projectId)).toBe((v0 ?? 0) + 2);
    const rows = await audit(projectId, "remote_config.key.upsert");
    expect(rows).toHaveLength(2);
    expect(rows[0]?.before).toBeNull();
    expect(rows[1]).toMatchObject({
      target: "shop.discount",
      before: { key: "shop.discount", defaultValue: 0 },
      after: { reason: "sale", key: "shop.discount", defaultValue: 10 },
    });
  });

  it("a change without a reason, or with an empty one, is refused and changes nothing", async () => {
    const projectId = s.project.projectId;
    const v = await versionOf(projectId);
    const rc = rcOf(s.owner);
    expect((await trpcRefusal(rc.upsertKey({ projectId, key: "x", type: "boolean", defaultValue: true, reason: "  " }))).appCode).toBe(
      "VALIDATION_ERROR",
    );
    expect(
      await refusalCode(
        rc.upsertKey({ projectId, key: "x", type: "boolean", defaultValue: true } as unknown as Parameters<typeof rc.upsertKey>[0]),
      ),
    ).toBe("VALIDATION_ERROR");
    expect(await versionOf(projectId)).toBe(v);
    expect((await rc.listKeys({ projectId })).map((k) => k.key)).not.toContain("x");
  });

  it("a value of the wrong type is refused (default and override)", async () => {
    const projectId = s.project.projectId;
    const rc = rcOf(s.owner);
    expect(await refusalCode(rc.upsertKey({ projectId, key: "n", type: "number", defaultValue: "ten", reason }))).toBe("VALIDATION_ERROR");
    expect(await refusalCode(rc.createOverride({ projectId, key: "shop.discount", value: "ten", reason }))).toBe("VALIDATION_ERROR");
    expect(await refusalCode(rc.upsertKey({ projectId, key: "s", type: "string", defaultValue: "x".repeat(4097), reason }))).toBe(
      "VALIDATION_ERROR",
    );
  });

  it("overrides are created, updated and deleted, listed under their key, each audited", async () => {
    const projectId = s.project.projectId;
    const rc = rcOf(s.owner);
    const created = await rc.createOverride({ projectId, key: "shop.discount", value: 20, priority: 5, rolloutPercent: 25, reason });
    expect(created).toMatchObject({ key: "shop.discount", value: 20, priority: 5, rolloutPercent: 25, audienceId: null, enabled: true });
    const updated = await rc.updateOverride({ projectId, id: created.id, rolloutPercent: 50, reason: "grow" });
    expect(updated).toMatchObject({ id: created.id, value: 20, rolloutPercent: 50 });
    const listed = (await rc.listKeys({ projectId })).find((k) => k.key === "shop.discount");
    expect(listed?.overrides.map((o) => [o.id, o.rolloutPercent])).toEqual([[created.id, 50]]);
    const [row] = await audit(projectId, "remote_config.override.update");
    expect(row).toMatchObject({ target: created.id, before: { rolloutPercent: 25 }, after: { reason: "grow", rolloutPercent: 50 } });
    await rc.deleteOverride({ projectId, id: created.id, reason: "done" });
    expect((await rc.listKeys({ projectId })).find((k) => k.key === "shop.discount")?.overrides).toEqual([]);
    expect(await refusalCode(rc.deleteOverride({ projectId, id: created.id, reason }))).toBe("NOT_FOUND");
  });

  it("another project's override is not found", async () => {
    const other = await setup();
    await rcOf(other.owner).upsertKey({ projectId: other.project.projectId, key: "k", type: "number", defaultValue: 1, reason });
    const theirs = await rcOf(other.owner).createOverride({ projectId: other.project.projectId, key: "k", value: 2, reason });
    const projectId = s.project.projectId;
    expect(await refusalCode(rcOf(s.owner).updateOverride({ projectId, id: theirs.id, value: 3, reason }))).toBe("NOT_FOUND");
    expect(await refusalCode(rcOf(s.owner).deleteOverride({ projectId, id: theirs.id, reason }))).toBe("NOT_FOUND");
  });

  it("a viewer reads and previews, and every write is FORBIDDEN", async () => {
    const projectId = s.project.projectId;
    const rc = rcOf(s.viewer);
    expect((await rc.listKeys({ projectId })).length).toBeGreaterThan(0);
    expect(await rc.countAudience({ projectId, rules: { all: [{ field: "hasEmail", eq: false }] } })).toEqual({ matching: 0 });
    expect(await refusalCode(rc.upsertKey({ projectId, key: "v", type: "boolean", defaultValue: true, reason }))).toBe("FORBIDDEN");
    expect(await refusalCode(rc.deleteKey({ projectId, key: "shop.discount", reason }))).toBe("FORBIDDEN");
    expect(
      await refusalCode(rc.upsertAudience({ projectId, id: "a", name: "A", rules: { all: [{ field: "banned", eq: true }] }, reason })),
    ).toBe("FORBIDDEN");
  });
});

describe("audiences and experiments", () => {
  it("an audience lists how many players match now; one in use cannot be deleted (IN_USE) until its override goes", async () => {
    const s = await setup();
    const projectId = s.project.projectId;
    const rc = rcOf(s.owner);
    await anonymousPlayer(s.project.clientKey);
    await anonymousPlayer(s.project.clientKey);
    await rc.upsertAudience({
      projectId,
      id: "guests",
      name: "Guests",
      rules: { all: [{ field: "signInMethod", in: ["anonymous"] }] },
      reason,
    });
    expect((await rc.listAudiences({ projectId })).map((a) => [a.id, a.matching])).toEqual([["guests", 2]]);
    await rc.upsertKey({ projectId, key: "welcome", type: "string", defaultValue: "hi", reason });
    const o = await rc.createOverride({ projectId, key: "welcome", audienceId: "guests", value: "sign up!", reason });
    const refusal = await trpcRefusal(rc.deleteAudience({ projectId, id: "guests", reason }));
    expect(refusal.appCode).toBe("IN_USE");
    expect(refusal.message).toContain("welcome");
    await rc.deleteOverride({ projectId, id: o.id, reason });
    await rc.deleteAudience({ projectId, id: "guests", reason });
    expect(await rc.listAudiences({ projectId })).toEqual([]);
    expect(await refusalCode(rc.createOverride({ projectId, key: "welcome", audienceId: "nobody", value: "x", reason }))).toBe(
      "VALIDATION_ERROR",
    );
  });

  it("an experiment's variants change only in draft; status goes draft → running → stopped; resolveForPlayer explains a player's values", async () => {
    const s = await setup();
    const projectId = s.project.projectId;
    const rc = rcOf(s.owner);
    await rc.upsertKey({ projectId, key: "price", type: "number", defaultValue: 5, reason });
    const experiment = {
      projectId,
      id: "price-test",
      name: "Price",
      variants: [
        { id: "low", name: "Low", weight: 1, values: { price: 3 } },
        { id: "high", name: "High", weight: 3, values: { price: 8 } },
      ],
      reason,
    };
    await rc.upsertExperiment(experiment);
    await rc.upsertExperiment({ ...experiment, variants: experiment.variants.map((v) => ({ ...v, weight: 1 })) });
    const running = await rc.setExperimentStatus({ projectId, id: "price-test", status: "running", reason });
    expect(running.status).toBe("running");
    expect(running.startedAt).not.toBeNull();
    expect(await refusalCode(rc.upsertExperiment(experiment))).toBe("EXPERIMENT_LOCKED");
    expect((await rc.upsertExperiment({ ...experiment, variants: running.variants, name: "Price v2" })).name).toBe("Price v2");
    expect(
      await refusalCode(
        rc.upsertExperiment({
          ...experiment,
          variants: [{ id: "x", name: "X", weight: 1, values: { nope: 1 } }, experiment.variants[0] as never],
        }),
      ),
    ).toBe("VALIDATION_ERROR");

    const player = await anonymousPlayer(s.project.clientKey);
    const why = await rcOf(s.viewer).resolveForPlayer({ projectId, playerId: player.playerId });
    const variant = why.wouldAssign["price-test"];
    expect(["low", "high"]).toContain(variant);
    expect(why.values.price).toBe(variant === "low" ? 3 : 8);
    expect(why.fromExperiment).toEqual({ price: "price-test" });
    expect(why.winningOverride).toEqual({ price: null });
    // Support reads assign nothing.
    expect((await pool().query("SELECT 1 FROM experiment_assignments WHERE player_id = $1", [player.playerId])).rowCount).toBe(0);

    await rc.setExperimentStatus({ projectId, id: "price-test", status: "stopped", reason });
    expect(await refusalCode(rc.setExperimentStatus({ projectId, id: "price-test", status: "running", reason }))).toBe("EXPERIMENT_LOCKED");
    expect(await refusalCode(rcOf(s.owner).resolveForPlayer({ projectId, playerId: "00000000-0000-7000-8000-0000000000ff" }))).toBe(
      "PLAYER_NOT_FOUND",
    );
  });
});

describe("config as code", () => {
  it("exports keys with overrides, audiences and experiments; importing the export elsewhere recreates them; importing it again changes nothing", async () => {
    const source = await setup();
    const projectId = source.project.projectId;
    const rc = rcOf(source.owner);
    await rc.upsertAudience({ projectId, id: "ios", name: "iOS", rules: { all: [{ field: "platform", in: ["ios"] }] }, reason });
    await rc.upsertKey({ projectId, key: "speed", type: "number", defaultValue: 1, description: "Run speed", reason });
    await rc.createOverride({ projectId, key: "speed", audienceId: "ios", value: 2, priority: 1, rolloutPercent: 30, reason });
    await rc.createOverride({
      projectId,
      key: "speed",
      value: 3,
      startsAt: "2026-01-01T00:00:00.000Z",
      endsAt: "2026-02-01T00:00:00.000Z",
      reason,
    });
    await rc.upsertExperiment({
      projectId,
      id: "speed-test",
      name: "Speed",
      audienceId: "ios",
      variants: [
        { id: "a", name: "A", weight: 1, values: { speed: 4 } },
        { id: "b", name: "B", weight: 1, values: {} },
      ],
      reason,
    });
    const doc = await exportConfigAs(ctx(source.owner), { projectId });
    expect(doc.remoteConfig?.keys.map((k) => [k.key, k.overrides.map((o) => o.value)])).toEqual([["speed", [2, 3]]]);
    expect(doc.audiences?.map((a) => a.id)).toEqual(["ios"]);
    expect(doc.experiments?.map((e) => [e.id, e.status])).toEqual([["speed-test", "draft"]]);

    const target = await setup();
    const plan = await dryRunImportAs(ctx(target.owner), { projectId: target.project.projectId, document: doc });
    expect(plan.refusals).toEqual([]);
    expect(plan.diff.remoteConfig?.created.map((c) => c.id)).toEqual(["speed"]);
    await applyImportAs(ctx(target.owner), { projectId: target.project.projectId, document: doc, expectDiffHash: plan.diffHash });
    const copied = await exportConfigAs(ctx(target.owner), { projectId: target.project.projectId });
    expect({ r: copied.remoteConfig, a: copied.audiences, e: copied.experiments }).toEqual({
      r: doc.remoteConfig,
      a: doc.audiences,
      e: doc.experiments,
    });
    expect((await dryRunImportAs(ctx(target.owner), { projectId: target.project.projectId, document: copied })).changes).toBe(0);
    expect(await versionOf(target.project.projectId)).toBeGreaterThan(0);
  });

  it("the dry run warns about an audience created or changed with a player data rule (only server-written values match), and refuses nothing", async () => {
    const s = await setup();
    const projectId = s.project.projectId;
    await rcOf(s.owner).upsertAudience({ projectId, id: "fr", name: "France", rules: { all: [{ field: "country", in: ["FR"] }] }, reason });
    const doc = await exportConfigAs(ctx(s.owner), { projectId });
    const plan = await dryRunImportAs(ctx(s.owner), {
      projectId,
      document: {
        ...doc,
        audiences: [
          {
            id: "fr",
            name: "France",
            description: "",
            rules: {
              all: [
                { field: "country", in: ["FR"] },
                { field: "data", key: "verified-rank", eq: "gold" },
              ],
            },
          },
          { id: "gold", name: "Gold", description: "", rules: { all: [{ field: "data", key: "tier", eq: "gold" }] } },
        ],
      },
    });
    expect(plan.refusals).toEqual([]);
    expect(plan.warnings.map((w) => [w.kind, w.id, "dataKeys" in w ? w.dataKeys : null])).toEqual([
      ["audiences", "fr", ["verified-rank"]],
      ["audiences", "gold", ["tier"]],
    ]);
    expect(plan.warnings[0]?.message).toContain("matches only values written with a server key");
  });

  it("an override naming an unknown audience is refused; deleting an audience in use is refused (IN_USE)", async () => {
    const s = await setup();
    const projectId = s.project.projectId;
    const rc = rcOf(s.owner);
    await rc.upsertAudience({ projectId, id: "fr", name: "France", rules: { all: [{ field: "country", in: ["FR"] }] }, reason });
    await rc.upsertKey({ projectId, key: "lang", type: "string", defaultValue: "en", reason });
    await rc.createOverride({ projectId, key: "lang", audienceId: "fr", value: "fr", reason });
    const doc = await exportConfigAs(ctx(s.owner), { projectId });
    const unknown = structuredClone(doc);
    const lang = unknown.remoteConfig?.keys[0];
    if (lang?.overrides[0]) lang.overrides[0].audienceId = "de";
    const plan = await dryRunImportAs(ctx(s.owner), { projectId, document: unknown });
    expect(plan.refusals.map((r) => [r.kind, r.id, r.code])).toEqual([["remoteConfig", "lang", "VALIDATION_ERROR"]]);
    const plan2 = await dryRunImportAs(ctx(s.owner), { projectId, document: { ...doc, audiences: [] } });
    expect(plan2.refusals.map((r) => [r.kind, r.id, r.action, r.code])).toEqual([["audiences", "fr", "delete", "IN_USE"]]);
    expect(await refusalCode(applyImportAs(ctx(s.owner), { projectId, document: { ...doc, audiences: [] } }))).toBe("IN_USE");
  });

  it("deleting an experiment that an audience left as it is still names is refused (IN_USE) and changes nothing", async () => {
    const s = await setup();
    const projectId = s.project.projectId;
    const rc = rcOf(s.owner);
    await experimentOnKey(rc, { projectId, ...COLOR_TEST, running: false, reason });
    await rc.upsertAudience({
      projectId,
      id: "testers",
      name: "Testers",
      rules: { all: [{ field: "experiment", experimentId: "color-test" }] },
      reason,
    });
    const doc = await exportConfigAs(ctx(s.owner), { projectId });
    const without = { ...doc, experiments: [] };
    const plan = await dryRunImportAs(ctx(s.owner), { projectId, document: without });
    expect(plan.refusals.map((r) => [r.kind, r.id, r.action, r.code, r.message])).toEqual([
      ["experiments", "color-test", "delete", "IN_USE", 'Named by audience "testers".'],
    ]);
    expect(await refusalCode(applyImportAs(ctx(s.owner), { projectId, document: without }))).toBe("IN_USE");
    expect((await exportConfigAs(ctx(s.owner), { projectId })).experiments?.map((e) => e.id)).toEqual(["color-test"]);
  });
});
