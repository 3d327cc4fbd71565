import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import type { ConfigDocument, ConfigStoreProduct, ImportPlan } from "@/server/services/config/schemas";
import { createCurrency, createItem, deleteCurrency } from "@/server/services/economy/definitions";
import { createStoreProduct } from "@/server/services/store/products";
import { setStoreSettingsAs } from "@/server/services/store/settings";
import { api } from "../support/api";
import { cli } from "../support/cli";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperatorWith, refusalCode, trpcRefusal } from "../support/operators";
import { appleReceipt, TEST_APPLE_APP, TEST_STORE_PRODUCTS } from "../support/stores";

/**
 * Store products in configuration as code: export, dry run and apply (in-process through the
 * config router, as an owner), refusals, and an imported product granted by the game API.
 */
let source: TestProject;
let owner: SessionOperator;

const projects: TestProject[] = [];
async function ownedProject(): Promise<TestProject> {
  const project = await makeProject();
  await prisma().projectMember.create({ data: { projectId: project.projectId, operatorId: owner.id, role: "OWNER" } });
  projects.push(project);
  return project;
}
const exportOf = (projectId: string) => caller(owner).config.export({ projectId });
const dryRun = (projectId: string, document: ConfigDocument) => caller(owner).config.dryRun({ projectId, document });
const apply = (projectId: string, document: ConfigDocument): Promise<ImportPlan> => caller(owner).config.import({ projectId, document });
const withoutSchema = ({ $schema: _s, ...doc }: ConfigDocument) => doc;
const productsOf = async (projectId: string) => (await exportOf(projectId)).storeProducts ?? [];

beforeAll(async () => {
  source = await makeProject();
  owner = await newOperatorWith([[source.projectId, "OWNER"]]);
  const projectId = source.projectId;
  await createCurrency({ projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
  await createItem({ projectId, input: { id: "vip-pass", name: "VIP pass" } });
  for (const input of TEST_STORE_PRODUCTS) await createStoreProduct({ projectId, input });
});

describe("export", () => {
  it("lists store products by id with every field, and validates against the committed schema", async () => {
    const doc = await exportOf(source.projectId);
    expect(doc.storeProducts).toEqual([
      {
        id: "gems-500",
        name: "500 gems",
        rewards: [{ currencyId: "gems", amount: 500 }],
        appleProductId: "com.example.game.gems500",
        googleProductId: "gems_500",
        steamItemId: "1001",
        kind: "consumable",
        priceMicros: 4_990_000,
        priceCurrency: "USD",
      },
      {
        id: "vip",
        name: "VIP pass",
        rewards: [{ itemId: "vip-pass", quantity: 1 }],
        appleProductId: "com.example.game.vip",
        googleProductId: "vip_pass",
        steamItemId: null,
        kind: "non_consumable",
        priceMicros: null,
        priceCurrency: null,
      },
    ]);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync("server/services/config/config-schema.json", "utf8")));
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe("dry run and apply", () => {
  it("into an empty project: the dry run lists the store products as created and changes nothing; apply creates them; a second dry run finds nothing", async () => {
    const target = await ownedProject();
    const doc = await exportOf(source.projectId);
    const plan = await dryRun(target.projectId, doc);
    expect(plan.refusals).toEqual([]);
    expect(plan.diff.storeProducts.created.map((c) => c.id)).toEqual(["gems-500", "vip"]);
    expect(plan.changes).toBe(4);
    expect(await prisma().storeProduct.count({ where: { projectId: target.projectId } })).toBe(0);
    await apply(target.projectId, doc);
    expect(withoutSchema(await exportOf(target.projectId))).toEqual(withoutSchema(doc));
    expect((await dryRun(target.projectId, doc)).changes).toBe(0);
  });

  it("an imported product is granted by POST /economy/receipts at once", async () => {
    const target = await ownedProject();
    await apply(target.projectId, await exportOf(source.projectId));
    await setStoreSettingsAs(ctx(owner), {
      projectId: target.projectId,
      input: {
        store: "apple",
        settings: { bundleId: TEST_APPLE_APP.bundleId, appAppleId: TEST_APPLE_APP.appAppleId, environments: "both" },
      },
    });
    const player = await anonymousPlayer(target.clientKey);
    const res = await api<{ productId: string; grant: { balances: Array<{ id: string; balance: number }> } }>(
      "POST",
      "/api/v1/economy/receipts",
      { key: target.clientKey, token: player.accessToken, body: appleReceipt({ productId: "com.example.game.gems500" }).body },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.productId).toBe("gems-500");
    expect(res.body.grant.balances).toContainEqual({ id: "gems", balance: 500 });
  });

  it("a changed product shows each changed field, before and after, and apply writes it", async () => {
    const target = await ownedProject();
    const doc = await exportOf(source.projectId);
    await apply(target.projectId, doc);
    const changed = structuredClone(doc);
    changed.storeProducts = (changed.storeProducts ?? []).map((p) =>
      p.id === "gems-500" ? { ...p, priceMicros: 5_990_000, steamItemId: "2002" } : p,
    );
    const plan = await dryRun(target.projectId, changed);
    expect(plan.diff.storeProducts.changed).toEqual([
      {
        id: "gems-500",
        fields: [
          { field: "steamItemId", before: "1001", after: "2002" },
          { field: "priceMicros", before: 4_990_000, after: 5_990_000 },
        ],
      },
    ]);
    await apply(target.projectId, changed);
    expect((await productsOf(target.projectId)).find((p) => p.id === "gems-500")).toMatchObject({
      steamItemId: "2002",
      priceMicros: 5_990_000,
    });
  });

  it("two products trading their App Store ids apply in one import", async () => {
    const target = await ownedProject();
    const doc = await exportOf(source.projectId);
    await apply(target.projectId, doc);
    const apple = (id: string) => doc.storeProducts?.find((p) => p.id === id)?.appleProductId ?? null;
    const traded = structuredClone(doc);
    traded.storeProducts = (traded.storeProducts ?? []).map((p) => ({ ...p, appleProductId: apple(p.id === "vip" ? "gems-500" : "vip") }));
    expect((await dryRun(target.projectId, traded)).refusals).toEqual([]);
    await apply(target.projectId, traded);
    expect((await productsOf(target.projectId)).map((p) => [p.id, p.appleProductId])).toEqual([
      ["gems-500", "com.example.game.vip"],
      ["vip", "com.example.game.gems500"],
    ]);
  });

  it("a store product and the currency it granted, deleted in one import, are both deleted", async () => {
    const target = await ownedProject();
    const doc = await exportOf(source.projectId);
    await apply(target.projectId, doc);
    const without = { ...doc, currencies: [], storeProducts: (doc.storeProducts ?? []).filter((p) => p.id !== "gems-500") };
    const plan = await apply(target.projectId, without);
    expect(plan.diff.storeProducts.deleted.map((d) => d.id)).toEqual(["gems-500"]);
    expect(plan.diff.currencies.deleted.map((d) => d.id)).toEqual(["gems"]);
    expect((await productsOf(target.projectId)).map((p) => p.id)).toEqual(["vip"]);
  });

  it("a document without storeProducts leaves the project's store products as they are", async () => {
    const target = await ownedProject();
    const doc = await exportOf(source.projectId);
    await apply(target.projectId, doc);
    const { storeProducts: _p, ...older } = doc;
    const plan = await apply(target.projectId, { ...older, items: [...older.items, { id: "shield", name: "Shield", maxStack: null }] });
    expect(plan.changes).toBe(1);
    expect(await productsOf(target.projectId)).toEqual(doc.storeProducts);
  });

  it("the import's one config.import audit entry holds the store products' diff", async () => {
    const target = await ownedProject();
    await apply(target.projectId, await exportOf(source.projectId));
    const entries = await prisma().auditEntry.findMany({ where: { projectId: target.projectId, action: "config.import" } });
    expect(entries).toHaveLength(1);
    const after = entries[0]?.after as { diff: { storeProducts: { created: Array<{ id: string }> } } };
    expect(after.diff.storeProducts.created.map((c) => c.id)).toEqual(["gems-500", "vip"]);
  });
});

describe("refusals: shown in the dry run; apply refuses the whole document and changes nothing", () => {
  let target: TestProject;
  let base: ConfigDocument;
  beforeAll(async () => {
    target = await ownedProject();
    base = await exportOf(source.projectId);
    await apply(target.projectId, base);
  });
  const withProducts = (products: ConfigStoreProduct[]): ConfigDocument => ({ ...structuredClone(base), storeProducts: products });
  const refusedAsWhole = async (doc: ConfigDocument) => {
    const before = await exportOf(target.projectId);
    const refusal = await trpcRefusal(apply(target.projectId, doc));
    expect(await exportOf(target.projectId)).toEqual(before);
    return refusal.appCode;
  };

  it("a product granting a currency the resulting configuration lacks", async () => {
    const coins: ConfigStoreProduct = {
      id: "coins-100",
      name: "100 coins",
      rewards: [{ currencyId: "coins", amount: 100 }],
      appleProductId: "com.example.game.coins100",
      googleProductId: null,
      steamItemId: null,
      kind: "consumable",
      priceMicros: null,
      priceCurrency: null,
    };
    const doc = withProducts([...(base.storeProducts ?? []), coins]);
    expect((await dryRun(target.projectId, doc)).refusals).toEqual([
      { kind: "storeProducts", id: "coins-100", action: "create", code: "VALIDATION_ERROR", message: 'rewards: no currency "coins".' },
    ]);
    expect(await refusedAsWhole(doc)).toBe("VALIDATION_ERROR");
  });

  it("two products claiming one Google Play product id: each one created or changed is refused, naming the other", async () => {
    const [gems, vip] = base.storeProducts ?? [];
    if (!gems || !vip) throw new Error("the source project has two store products");
    const doc = withProducts([gems, { ...vip, googleProductId: "gems_500" }]);
    expect((await dryRun(target.projectId, doc)).refusals).toEqual([
      {
        kind: "storeProducts",
        id: "vip",
        action: "change",
        code: "VALIDATION_ERROR",
        message: 'googleProductId: "gems_500" is also claimed by "gems-500".',
      },
    ]);
    expect(await refusedAsWhole(doc)).toBe("VALIDATION_ERROR");
  });

  it("deleting a currency a kept store product grants is IN_USE, in the words of the dashboard's delete", async () => {
    const doc = { ...structuredClone(base), currencies: [] };
    const plan = await dryRun(target.projectId, doc);
    expect(plan.refusals).toEqual([
      { kind: "currencies", id: "gems", action: "delete", code: "IN_USE", message: "Store products grant it: gems-500." },
    ]);
    expect(await refusalCode(deleteCurrency({ projectId: target.projectId, id: "gems" }))).toBe("IN_USE");
    expect(await refusedAsWhole(doc)).toBe("IN_USE");
  });

  it("deleting an item a kept store product grants is IN_USE", async () => {
    const doc = { ...structuredClone(base), items: [] };
    expect((await dryRun(target.projectId, doc)).refusals).toEqual([
      { kind: "items", id: "vip-pass", action: "delete", code: "IN_USE", message: "Store products grant it: vip." },
    ]);
  });
});

describe("npm run admin", () => {
  it("config export writes the store products, and config import applies them into another project", async () => {
    const target = await ownedProject();
    const { token } = await createOperatorToken({ operator: owner, name: "ci", role: "ADMIN", projectIds: null, instanceAdmin: false });
    const file = path.join(mkdtempSync(path.join(tmpdir(), "gb-store-config-")), "config.json");
    const exported = await cli(["config", "export", "--project", source.projectId, "--out", file], token);
    expect(exported.code, exported.stderr).toBe(0);
    const written = JSON.parse(readFileSync(file, "utf8")) as ConfigDocument;
    expect(written.storeProducts?.map((p) => p.id)).toEqual(["gems-500", "vip"]);
    const applied = await cli(["config", "import", "--project", target.projectId, "--file", file], token);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await productsOf(target.projectId)).toEqual(written.storeProducts);
  });
});
