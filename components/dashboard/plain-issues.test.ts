import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ZCurrencyInput } from "@/server/services/economy/schemas";
import { ZCreateLeaderboard } from "@/server/services/leaderboards/schemas";
import { numberInWords, placeOf, plainIssue, plainly, plainParsed, plainServerIssue } from "./plain-issues";

const INTERNAL = /expected|Too (small|big)|input\.|Invalid (uuid|input)|9007199254740991|must not be below [a-z]+Score/i;

/** The sentences a form shows (the error map) and a failed call shows (zod's default message, rebuilt). */
function both(schema: z.ZodType, value: unknown) {
  const client = [...new Set(schema.safeParse(value, plainly).error?.issues.map(plainParsed))];
  const server =
    schema
      .safeParse(value)
      .error?.issues.map((i) => plainServerIssue({ path: ["input", ...i.path.map(String)].join("."), message: i.message })) ?? [];
  return { client, server };
}

describe("plainIssue", () => {
  it("asks for a missing name by its field, and states a string's length limit", () => {
    const schema = z.strictObject({ name: z.string().trim().min(1).max(100) });
    expect(both(schema, { name: "" })).toEqual({ client: ["Enter a name."], server: ["Enter a name."] });
    expect(both(schema, { name: "x".repeat(101) })).toEqual({
      client: ["Use at most 100 characters."],
      server: ["Use at most 100 characters."],
    });
    expect(both(z.string().min(8), "short").client).toEqual(["Use at least 8 characters."]);
  });

  it("gives both bounds of a whole number in the form, and big ones in words", () => {
    const schema = z.strictObject({ n: z.number().int().min(0).max(1_000_000) });
    expect(both(schema, { n: 2_000_000 }).client).toEqual(["Enter a whole number between 0 and 1,000,000."]);
    expect(both(schema, { n: 1e300 }).client).toEqual(["Enter a whole number between 0 and 1,000,000."]);
    const amount = z.strictObject({ amount: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
    const { client, server } = both(amount, { amount: 1e300 });
    expect(client).toEqual(["Enter a whole number between 1 and 9 quadrillion."]);
    expect(server[0]).toBe("Enter a whole number of at most 9 quadrillion.");
    expect(both(amount, { amount: 0 }).server).toEqual(["Enter a number of at least 1."]);
    expect(numberInWords(1234)).toBe("1,234");
  });

  it("names the kind of value a field needs (invalid_type)", () => {
    const schema = z.strictObject({ email: z.string(), n: z.number().int(), flag: z.boolean() });
    const { client, server } = both(schema, { n: 1.5, flag: "yes" });
    expect(client).toEqual(["Enter an e-mail address.", "Enter a whole number.", "Choose yes or no."]);
    expect(server).toEqual(["Enter an e-mail address.", "Enter a whole number.", "Choose yes or no."]);
    expect(both(z.number(), Number.NaN).client).toEqual(["Enter a number."]);
  });

  it("explains formats (uuid, e-mail, url) without zod's words", () => {
    const schema = z.strictObject({ id: z.uuid(), email: z.email(), url: z.url() });
    const { client, server } = both(schema, { id: "x", email: "x", url: "x" });
    const expected = [
      "That is not a valid id.",
      "Enter an e-mail address, like name@example.com.",
      "Enter a web address, like https://example.com.",
    ];
    expect(client).toEqual(expected);
    expect(server).toEqual(expected);
  });

  it("turns the schemas' developer sentences (custom issues) into the operator's", () => {
    const board = { id: "b", sortOrder: "desc", operator: "best", name: "B", minScore: 10, maxScore: 5 };
    expect(both(ZCreateLeaderboard, board).client).toEqual(["The highest score must not be below the lowest score."]);
    expect(both(ZCreateLeaderboard, board).server).toEqual(["The highest score must not be below the lowest score."]);
    const currency = { id: "c", name: "C", initialBalance: 10, maxBalance: 5 };
    expect(both(ZCurrencyInput, currency).server).toEqual(["The maximum balance must not be below the starting balance."]);
    expect(plainIssue({ code: "custom", message: "Must be https." })).toBe("Must be https.");
    const cron = plainServerIssue({
      path: "input.board.resetSchedule",
      message: "Invalid cron expression: Constraint error, got value 99 expected range 0-59",
    });
    expect(cron).toMatch(/^That cron expression does not work/);
    expect(cron).not.toMatch(INTERNAL);
  });

  it("says where in a document an issue sits, never the JSON path", () => {
    expect(placeOf(["input", "document", "purchases", "1", "costs", "0", "amount"])).toBe('Purchase 2, cost line 1, "amount"');
    expect(placeOf(["input", "name"])).toBe("");
    const sentence = plainServerIssue(
      { path: "input.document.leaderboards.0.maxScore", message: "maxScore must not be below minScore." },
      { place: true },
    );
    expect(sentence).toBe('Leaderboard 1, "maxScore": The highest score must not be below the lowest score.');
    expect(plainServerIssue({ path: "input.document", message: 'Unrecognized key: "extra"' })).toBe('Remove "extra": not a known setting.');
  });

  it("never lets zod's wording through for any of these issues", () => {
    const schema = z.strictObject({
      name: z.string().min(1).max(3),
      n: z.number().int().min(1).max(5),
      id: z.uuid(),
      tags: z.array(z.string()).min(1).max(1),
      kind: z.enum(["a", "b"]),
    });
    for (const value of [
      {},
      { name: "", n: 0, id: "", tags: [], kind: "c" },
      { name: "abcd", n: 1e300, id: 1, tags: ["a", "b"], kind: 1, x: 1 },
    ]) {
      const { client, server } = both(schema, value);
      for (const sentence of [...client, ...server]) expect(sentence).not.toMatch(INTERNAL);
    }
  });
});
