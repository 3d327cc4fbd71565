import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { configJsonSchema, ZConfigDocument } from "./schemas";

const COMMITTED = path.join(import.meta.dirname, "config-schema.json");

const sample = {
  $schema: "http://localhost:3000/api/config-schema.json",
  version: 1,
  leaderboards: [
    {
      id: "high-scores",
      name: "High scores",
      sortOrder: "desc",
      operator: "best",
      minScore: 0,
      maxScore: null,
      resetSchedule: "weekly",
      clientWritable: true,
    },
  ],
  currencies: [{ id: "coins", name: "Coins", initialBalance: 100, maxBalance: 1_000_000, clientWritable: true }],
  items: [{ id: "potion", name: "Potion", maxStack: null }],
  purchases: [
    { id: "buy-potion", name: "Buy a potion", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  ],
  storeProducts: [
    {
      id: "gems-500",
      name: "500 gems",
      rewards: [{ currencyId: "coins", amount: 500 }],
      appleProductId: "com.studio.gems500",
      googleProductId: "gems_500",
      steamItemId: "1001",
      kind: "consumable",
      priceMicros: 4_990_000,
      priceCurrency: "USD",
    },
  ],
  identityProviders: [
    { id: "studio", issuer: "https://id.example.com", jwksUrl: "https://id.example.com/jwks", audience: "game", algorithms: ["RS256"] },
  ],
};

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(COMMITTED, "utf8")));
}

describe("the configuration document's JSON Schema", () => {
  it("equals the committed config-schema.json (a change needs UPDATE_CONFIG_SCHEMA=1 and shows in review)", () => {
    const current = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
    if (process.env.UPDATE_CONFIG_SCHEMA === "1") writeFileSync(COMMITTED, current);
    expect(
      current === readFileSync(COMMITTED, "utf8"),
      "run `UPDATE_CONFIG_SCHEMA=1 npx vitest run --project unit server/services/config`",
    ).toBe(true);
  });

  it("refuses a name with a bidi override, as the dashboard and the services do", () => {
    const spoofed = { ...sample, items: [{ id: "potion", name: "Potion\u202E", maxStack: null }] };
    expect(ZConfigDocument.safeParse(sample).success).toBe(true);
    expect(ZConfigDocument.safeParse(spoofed).success).toBe(false);
  });

  it("accepts what the zod schema accepts and refuses unknown fields, missing fields and bad ids", () => {
    const validate = validator();
    expect(ZConfigDocument.safeParse(sample).success).toBe(true);
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
    const bad = [
      { ...sample, extra: 1 },
      { ...sample, version: 2 },
      { ...sample, items: [{ id: "Potion!", name: "x", maxStack: null }] },
      { ...sample, currencies: [{ id: "coins", name: "Coins", initialBalance: 1, clientWritable: true }] },
      { ...sample, purchases: [{ ...sample.purchases[0], costs: [{ currencyId: "coins", quantity: 1 }] }] },
    ];
    for (const doc of bad) {
      expect(validate(doc)).toBe(false);
      expect(ZConfigDocument.safeParse(doc).success).toBe(false);
    }
  });

  it("zod refuses what JSON Schema cannot say: duplicate ids, bounds out of order", () => {
    expect(ZConfigDocument.safeParse({ ...sample, items: [...sample.items, ...sample.items] }).success).toBe(false);
    expect(ZConfigDocument.safeParse({ ...sample, leaderboards: [{ ...sample.leaderboards[0], minScore: 10, maxScore: 1 }] }).success).toBe(
      false,
    );
  });

  describe("store products", () => {
    const [gems] = sample.storeProducts;
    const withProduct = (changes: Record<string, unknown>) => ({ ...sample, storeProducts: [{ ...gems, ...changes }] });

    it("a document without storeProducts (written before they existed) is valid", () => {
      const { storeProducts: _p, ...older } = sample;
      expect(ZConfigDocument.safeParse(older).success).toBe(true);
      expect(validator()(older)).toBe(true);
    });

    it("every field is required: a product without kind or priceMicros is refused by zod and the JSON Schema", () => {
      const validate = validator();
      for (const field of ["kind", "priceMicros", "appleProductId"]) {
        const { [field]: _omitted, ...rest } = gems as Record<string, unknown>;
        const doc = { ...sample, storeProducts: [rest] };
        expect(ZConfigDocument.safeParse(doc).success, field).toBe(false);
        expect(validate(doc), field).toBe(false);
      }
    });

    it("zod applies ZStoreProductInput's rules: no store id, a price without its currency, a Steam product without a price", () => {
      const messages = (doc: unknown) => ZConfigDocument.safeParse(doc).error?.issues.map((i) => [i.path.join("."), i.message]);
      expect(messages(withProduct({ appleProductId: null, googleProductId: null, steamItemId: null }))).toEqual([
        ["storeProducts.0.appleProductId", "Give the product's id in at least one store."],
      ]);
      expect(messages(withProduct({ steamItemId: null, priceCurrency: null }))).toEqual([
        ["storeProducts.0.priceCurrency", "Give the price and its currency together, or neither."],
      ]);
      expect(messages(withProduct({ priceMicros: null, priceCurrency: null }))).toEqual([
        ["storeProducts.0.priceMicros", "Steam charges the price we send: a Steam product needs one."],
      ]);
      expect(messages(withProduct({ googleProductId: "Gems500" }))?.[0]?.[0]).toBe("storeProducts.0.googleProductId");
    });

    it("zod refuses the same product id twice", () => {
      const twice = { ...sample, storeProducts: [gems, { ...gems, appleProductId: "other", googleProductId: null, steamItemId: null }] };
      expect(ZConfigDocument.safeParse(twice).error?.issues.map((i) => i.message)).toEqual(['The id "gems-500" is listed twice.']);
    });
  });
});
