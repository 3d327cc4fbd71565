import { describe, expect, it } from "vitest";
import { ZRule } from "@/server/services/remote-config/schemas";
import { whenUtcAndLocal } from "./live-format";
import { rowOf, ruleOf } from "./live-rules";
import { parseValue } from "./live-value";

describe("the audience rule builder", () => {
  it("turns each kind of row into a rule the service accepts, and the rule back into the same row", () => {
    const rows = [
      { field: "signInMethod", op: "in", value: "anonymous, email", extra: "" },
      { field: "hasEmail", op: "eq", value: "true", extra: "" },
      { field: "lastSeenAt", op: "withinDays", value: "7", extra: "" },
      { field: "country", op: "in", value: "FR, DE", extra: "" },
      { field: "clientVersion", op: "gte", value: "1.4.2", extra: "" },
      { field: "balance", op: "lte", value: "100", extra: "gems" },
      { field: "storeSpent", op: "gte", value: "9.99", extra: "USD" },
      { field: "data", op: "eq", value: '"gold"', extra: "tier" },
      { field: "experiment", op: "variant", value: "cheap", extra: "potion-price" },
    ] as const;
    for (const row of rows) {
      const rule = ZRule.parse(ruleOf(row));
      expect(rowOf(rule), row.field).toEqual(row);
    }
  });

  it("sends store spend in micros", () => {
    expect(ruleOf({ field: "storeSpent", op: "gte", value: "9.99", extra: "usd" })).toEqual({
      field: "storeSpent",
      currency: "USD",
      gte: 9_990_000,
    });
  });
});

describe("live ops formatting", () => {
  it("shows an instant in UTC and in the operator's zone with the zone's name", () => {
    expect(whenUtcAndLocal("2026-12-05T18:00:00.000Z", "Europe/Paris")).toEqual({
      utc: "2026-12-05 18:00 UTC",
      local: "2026-12-05 19:00 Europe/Paris",
    });
  });

  it("reads a typed value as the key's type, and says what is wrong otherwise", () => {
    expect(parseValue("number", "4.99")).toEqual({ value: 4.99 });
    expect(parseValue("number", "four")).toHaveProperty("problem");
    expect(parseValue("boolean", "true")).toEqual({ value: true });
    expect(parseValue("json", '{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseValue("json", "{a")).toHaveProperty("problem");
  });
});
