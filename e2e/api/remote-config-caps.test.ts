import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { AppError } from "@/server/errors";
import type { PlanName } from "@/server/ratelimit/plans";
import { applyImportAs, dryRunImportAs, exportConfigAs } from "@/server/services/config";
import type { ConfigDocument } from "@/server/services/config/schemas";
import type { JsonValue } from "@/server/services/json-value";
import { CONFIG_CAPS } from "@/server/services/remote-config/limits";
import { api } from "../support/api";
import { anonymousPlayer, makeProject } from "../support/fixtures";
import { caller, ctx, newOperator, newOperatorWith } from "../support/operators";

/**
 * Remote config's caps per plan (server/services/remote-config/limits.ts): config keys, bytes per
 * value, bytes of the worst-case GET /config answer. Each write path — a key, an override created
 * or changed, an experiment's variants, a config import — is refused past a cap with
 * LIMIT_EXCEEDED naming the limit and the plan, and changes nothing; a larger plan allows it; a
 * project already over a cap keeps serving its config and may shrink, not grow.
 */

const reason = "caps";
const FREE = CONFIG_CAPS.FREE;
/** A json value of about `bytes` bytes serialised. */
const blob = (bytes: number) => ({ pad: "x".repeat(bytes - 10) });

async function freeProject(plan: PlanName = "FREE") {
  const project = await makeProject({ plan });
  const owner = await newOperator("OWNER", project.projectId);
  return { project, projectId: project.projectId, owner, rc: caller(owner).remoteConfig };
}

/** The AppError a call was refused with (through tRPC, the one the dashboard shows: its message). */
async function refusal(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error;
    if (error instanceof TRPCError && error.cause instanceof AppError) {
      // The dashboard shows the tRPC error's message: the same words.
      expect(error.message).toBe(error.cause.message);
      return error.cause;
    }
    throw error;
  }
  throw new Error("the call was not refused");
}

/** Everything a refused change must leave as it was: the definitions and the version. */
async function stateOf(projectId: string) {
  const q = async (sql: string) => (await pool().query(sql, [projectId])).rows;
  return {
    version: (await q("SELECT remote_config_version FROM projects WHERE id = $1"))[0],
    keys: await q("SELECT key, type, default_value FROM remote_config_keys WHERE project_id = $1 ORDER BY key"),
    overrides: await q("SELECT id, key, value FROM remote_config_overrides WHERE project_id = $1 ORDER BY id"),
    experiments: await q("SELECT id, variants FROM experiments WHERE project_id = $1 ORDER BY id"),
  };
}

/** Keys written straight into the table: a project that filled up (or was filled before the caps). */
async function insertKeys(projectId: string, n: number, value: unknown = 1, prefix = "k") {
  await pool().query(
    `INSERT INTO remote_config_keys (project_id, key, type, default_value, description)
     SELECT $1, $2 || lpad(i::text, 4, '0'), 'json', $3::jsonb, '' FROM generate_series(1, $4) AS i`,
    [projectId, prefix, JSON.stringify(value), n],
  );
}

const expectLimit = (e: AppError, limit: string, max: number, plan = "Free") => {
  expect(e.code).toBe("LIMIT_EXCEEDED");
  expect(e.status).toBe(422);
  expect(e.details).toMatchObject({ limit, max });
  expect(e.message).toContain(`The ${plan} plan allows at most ${max.toLocaleString("en-US")}`);
};

describe("the dashboard's changes", () => {
  it("a key past the key cap is refused and nothing changes; changing an existing key still works", async () => {
    const { projectId, rc } = await freeProject();
    await insertKeys(projectId, FREE.keys);
    const before = await stateOf(projectId);
    const e = await refusal(rc.upsertKey({ projectId, key: "one-more", type: "number", defaultValue: 1, reason }));
    expectLimit(e, "keys", 200);
    expect(e.details).toMatchObject({ current: 201 });
    expect(e.message).toContain("200 config keys");
    expect(await stateOf(projectId)).toEqual(before);
    await rc.upsertKey({ projectId, key: "k0001", type: "json", defaultValue: 2, description: "changed", reason });
    expect((await stateOf(projectId)).keys).toHaveLength(200);
  });

  it("a value over the value cap is refused on every path: key default, override created and changed, experiment variant", async () => {
    const { projectId, rc } = await freeProject();
    await rc.upsertKey({ projectId, key: "shop", type: "json", defaultValue: { a: 1 }, reason });
    const override = await rc.createOverride({ projectId, key: "shop", value: { a: 2 }, reason });
    const before = await stateOf(projectId);
    const big = blob(FREE.valueBytes + 100);
    const refusals = [
      await refusal(rc.upsertKey({ projectId, key: "shop", type: "json", defaultValue: big, reason })),
      await refusal(rc.upsertKey({ projectId, key: "other", type: "json", defaultValue: big, reason })),
      await refusal(rc.createOverride({ projectId, key: "shop", value: big, reason })),
      await refusal(rc.updateOverride({ projectId, id: override.id, value: big, reason })),
      await refusal(
        rc.upsertExperiment({
          projectId,
          id: "shop-test",
          name: "Shop",
          variants: [
            { id: "a", name: "A", weight: 1, values: { shop: big } },
            { id: "b", name: "B", weight: 1, values: {} },
          ],
          reason,
        }),
      ),
    ];
    for (const e of refusals) {
      expectLimit(e, "valueBytes", FREE.valueBytes);
      expect(e.details).toMatchObject({ current: JSON.stringify(big).length });
      expect(e.message).toContain("bytes per config value");
    }
    expect(await stateOf(projectId)).toEqual(before);
  });

  it("values each under the value cap are refused once the worst-case answer passes its cap", async () => {
    const { projectId, rc } = await freeProject();
    const value = blob(7_200);
    await insertKeys(projectId, 9, value); // 9 × 7,200 bytes and the key names: 64,899 bytes, just under 64 KiB
    await rc.upsertKey({ projectId, key: "small", type: "number", defaultValue: 1, reason });
    const before = await stateOf(projectId);
    // The answer counts each key at its largest value: an override can grow it as a new key does.
    for (const call of [
      rc.upsertKey({ projectId, key: "one-more", type: "json", defaultValue: value, reason }),
      rc.upsertKey({ projectId, key: "small", type: "json", defaultValue: value, reason }),
    ]) {
      const e = await refusal(call);
      expectLimit(e, "answerBytes", FREE.answerBytes);
      expect((e.details as { current: number }).current).toBeGreaterThan(FREE.answerBytes);
    }
    await rc.upsertKey({ projectId, key: "small", type: "number", defaultValue: 1, reason }); // a number more is fine
    expect(await refusal(rc.createOverride({ projectId, key: "k0001", value: blob(8_000), reason }))).toMatchObject({
      code: "LIMIT_EXCEEDED",
      details: { limit: "answerBytes" },
    });
    expect((await stateOf(projectId)).overrides).toEqual(before.overrides);
  });

  it("a Pro project is allowed what a Free one is refused; moved back to Free it keeps its values", async () => {
    const { project, projectId, rc } = await freeProject();
    const big = blob(FREE.valueBytes + 100);
    expect((await refusal(rc.upsertKey({ projectId, key: "shop", type: "json", defaultValue: big, reason }))).code).toBe("LIMIT_EXCEEDED");
    const admin = caller(await newOperatorWith([], true));
    await admin.projects.setPlan({ projectId, plan: "PRO" });
    await rc.upsertKey({ projectId, key: "shop", type: "json", defaultValue: big, reason });
    await insertKeys(projectId, FREE.keys);
    await rc.upsertKey({ projectId, key: "more", type: "number", defaultValue: 1, reason });
    await admin.projects.setPlan({ projectId, plan: "FREE" });
    const player = await anonymousPlayer(project.clientKey);
    const res = await api<{ values: Record<string, unknown> }>("GET", "/api/v1/config", {
      key: project.clientKey,
      token: player.accessToken,
    });
    expect(res.status).toBe(200);
    expect(res.body.values.shop).toEqual(big);
    expect(Object.keys(res.body.values)).toHaveLength(FREE.keys + 2);
  });
});

describe("a project already over its caps", () => {
  it("keeps serving its config; may delete, shrink and change what does not grow; may not grow any measure", async () => {
    const { project, projectId, rc } = await freeProject();
    // Written before the caps: 250 keys, one of them 12 KB, and 10 KB values in two more.
    await insertKeys(projectId, 248);
    await insertKeys(projectId, 1, blob(12_000), "big");
    await insertKeys(projectId, 1, blob(10_000), "mid");
    const player = await anonymousPlayer(project.clientKey);
    const res = await api<{ values: Record<string, unknown> }>("GET", "/api/v1/config", {
      key: project.clientKey,
      token: player.accessToken,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.values)).toHaveLength(250);

    await rc.deleteKey({ projectId, key: "k0001", reason });
    await rc.upsertKey({ projectId, key: "k0002", type: "json", defaultValue: 5, description: "renamed in words", reason });
    await rc.upsertKey({ projectId, key: "big0001", type: "json", defaultValue: blob(11_000), reason }); // shrinks, still over
    const before = await stateOf(projectId);
    expectLimit(await refusal(rc.upsertKey({ projectId, key: "new", type: "number", defaultValue: 1, reason })), "keys", 200);
    expectLimit(
      await refusal(rc.upsertKey({ projectId, key: "big0001", type: "json", defaultValue: blob(11_500), reason })),
      "valueBytes",
      FREE.valueBytes,
    );
    // Beside a larger value already there, another over the cap is still refused.
    expectLimit(await refusal(rc.createOverride({ projectId, key: "k0003", value: blob(9_000), reason })), "valueBytes", FREE.valueBytes);
    expect(await stateOf(projectId)).toEqual(before);
  });
});

describe("config as code", () => {
  it("an import past a cap is refused as a whole: the dry run names it, the apply changes nothing", async () => {
    const { projectId, owner, rc } = await freeProject();
    await rc.upsertKey({ projectId, key: "speed", type: "number", defaultValue: 1, reason });
    const doc = await exportConfigAs(ctx(owner), { projectId });
    const keys = (n: number, value: JsonValue = 1) =>
      Array.from({ length: n }, (_, i) => ({
        key: `key-${i}`,
        type: "json" as const,
        default: value,
        description: "",
        overrides: [],
      }));
    const cases: Array<[string, typeof doc]> = [
      ["keys", { ...doc, remoteConfig: { keys: keys(FREE.keys + 1) } }],
      ["valueBytes", { ...doc, remoteConfig: { keys: keys(1, blob(FREE.valueBytes + 100)) } }],
      ["answerBytes", { ...doc, remoteConfig: { keys: keys(10, blob(7_000)) } }],
    ];
    const before = await stateOf(projectId);
    for (const [limit, document] of cases) {
      const plan = await dryRunImportAs(ctx(owner), { projectId, document });
      expect(plan.refusals.map((r) => [r.kind, r.id, r.code])).toEqual([["remoteConfig", limit, "LIMIT_EXCEEDED"]]);
      expect(plan.refusals[0]?.message).toContain("The Free plan allows at most");
      const e = await refusal(applyImportAs(ctx(owner), { projectId, document }));
      expect(e.code).toBe("LIMIT_EXCEEDED");
      expect(e.details).toMatchObject({ limit, max: FREE[limit as keyof typeof FREE] });
      expect(e.message).toContain("Nothing was applied");
      expect(e.message).toContain("The Free plan allows at most");
      expect(await stateOf(projectId)).toEqual(before);
    }
  });

  it("an experiment's variant value counts, and a Pro project imports what Free refuses", async () => {
    const { projectId, owner } = await freeProject("PRO");
    const doc = await exportConfigAs(ctx(owner), { projectId });
    const document: ConfigDocument = {
      ...doc,
      remoteConfig: { keys: [{ key: "shop", type: "json" as const, default: {}, description: "", overrides: [] }] },
      experiments: [
        {
          id: "shop-test",
          name: "Shop",
          description: "",
          audienceId: null,
          status: "draft" as const,
          variants: [
            { id: "a", name: "A", weight: 1, values: { shop: blob(FREE.valueBytes + 100) } },
            { id: "b", name: "B", weight: 1, values: {} },
          ],
          metric: null,
        },
      ],
    };
    await applyImportAs(ctx(owner), { projectId, document });
    expect((await stateOf(projectId)).experiments).toHaveLength(1);
    const free = await freeProject();
    const e = await refusal(applyImportAs(ctx(free.owner), { projectId: free.projectId, document }));
    expect(e.details).toMatchObject({ limit: "valueBytes", max: FREE.valueBytes });
    expect((await stateOf(free.projectId)).keys).toEqual([]);
  });
});
