import { describe, expect, it } from "vitest";
import { draftsOf, rewardsOf, type TierDraft, tierInWords, tierProblems } from "./reward-tiers";

const names = new Map([
  ["currency:gems", "Gems"],
  ["item:shield", "Shield"],
]);
const TABLE = [
  { rank: 1, currencies: [{ id: "gems", amount: 100 }], items: [] },
  { fromRank: 2, toRank: 3, currencies: [{ id: "gems", amount: 50 }], items: [{ id: "shield", quantity: 1 }] },
  { topPercent: 10, currencies: [{ id: "gems", amount: 5 }], items: [] },
];

describe("the rewards tier editor's model", () => {
  it("a table goes to drafts and back unchanged", () => {
    expect(rewardsOf(draftsOf(TABLE))).toEqual(TABLE);
    expect(tierProblems(draftsOf(TABLE))).toEqual([]);
  });

  it("tiers read in words with the project's names", () => {
    expect(TABLE.map((t) => tierInWords(t, names))).toEqual(["#1: 100 Gems", "#2–#3: 50 Gems, 1 Shield", "Top 10 %: 5 Gems"]);
    expect(tierInWords({ rank: 4, currencies: [{ id: "coins", amount: 1 }], items: [] })).toBe("#4: 1 coin");
  });

  it("an incomplete tier is refused on its inputs with the tier's number", () => {
    const drafts: TierDraft[] = [
      { kind: "range", from: "1", to: "", lines: [{ ref: "", amount: "" }] },
      { kind: "percent", from: "", to: "", lines: [{ ref: "currency:gems", amount: "" }] },
    ];
    expect(tierProblems(drafts)).toEqual([
      { path: ["rewards", 0, "to"], message: "Tier 1: enter the last rank." },
      { path: ["rewards", 0, "lines", 0, "ref"], message: "Tier 1, line 1: pick a currency or an item." },
      { path: ["rewards", 1, "from"], message: "Tier 2: enter a percent." },
      { path: ["rewards", 1, "lines", 0, "amount"], message: "Tier 2, line 1: enter an amount." },
    ]);
  });

  it("the service's rules land on the tier's input: order, a line listed twice, a tier that grants nothing", () => {
    const [first, second] = draftsOf(TABLE) as [TierDraft, TierDraft];
    expect(tierProblems([second, first])).toEqual([
      { path: ["rewards", 1, "from"], message: "Tier 2: Ranks overlap or are out of order: this tier starts at 1, after 3." },
    ]);
    const twice: TierDraft = {
      kind: "rank",
      from: "1",
      to: "",
      lines: [
        { ref: "item:shield", amount: "1" },
        { ref: "currency:gems", amount: "2" },
        { ref: "item:shield", amount: "3" },
      ],
    };
    expect(tierProblems([twice])).toEqual([
      { path: ["rewards", 0, "lines", 2, "ref"], message: 'Tier 1, line 3: "shield" is listed twice.' },
    ]);
    const empty: TierDraft = { kind: "rank", from: "1", to: "", lines: [] };
    expect(tierProblems([empty])).toEqual([
      { path: ["rewards", 0, "lines"], message: "Tier 1: A tier grants at least one currency or item." },
    ]);
    const backwards: TierDraft = { kind: "range", from: "5", to: "2", lines: [{ ref: "currency:gems", amount: "1" }] };
    expect(tierProblems([backwards])).toEqual([{ path: ["rewards", 0, "to"], message: "Tier 1: toRank must not be below fromRank." }]);
  });
});
