import { z } from "zod";
import { MAX_REWARD_TIERS, type Rewards, type RewardTier, ZRewards } from "@/server/services/leaderboards/board-schemas";
import { countOf } from "./format";
import { plainly, plainParsed } from "./plain-issues";

/**
 * The rewards table as the board form holds it (text as typed) and back, its problems in words
 * on the tier's own inputs ("Tier 2: …"), and the tiers in words for the board page
 * ("#2–#3: 50 Gems, 1 Shield"). The rules are the service's (ZRewards), checked here on what
 * would be sent.
 */
export const TIER_KINDS = [
  { value: "rank", label: "Single rank" },
  { value: "range", label: "Rank range" },
  { value: "percent", label: "Top percent" },
] as const;
export type TierKind = (typeof TIER_KINDS)[number]["value"];

/** A line: "currency:<id>" or "item:<id>", and the amount (quantity for items) as typed. */
export const ZRewardLineDraft = z.object({ ref: z.string(), amount: z.string() });
export const ZTierDraft = z.object({
  kind: z.enum(["rank", "range", "percent"]),
  /** The rank, the first rank of a range, or the percent. */
  from: z.string(),
  /** The last rank of a range. */
  to: z.string(),
  lines: z.array(ZRewardLineDraft),
});
export type TierDraft = z.input<typeof ZTierDraft>;
export type Problem = { path: PropertyKey[]; message: string };

export const emptyTier = (): TierDraft => ({ kind: "rank", from: "", to: "", lines: [{ ref: "", amount: "" }] });
export { MAX_REWARD_TIERS };

export function draftsOf(rewards: ReadonlyArray<RewardTier>): TierDraft[] {
  return rewards.map((t) => ({
    kind: t.rank !== undefined ? "rank" : t.topPercent !== undefined ? "percent" : "range",
    from: String(t.rank ?? t.fromRank ?? t.topPercent ?? ""),
    to: t.toRank === undefined ? "" : String(t.toRank),
    lines: [
      ...t.currencies.map((l) => ({ ref: `currency:${l.id}`, amount: String(l.amount) })),
      ...t.items.map((l) => ({ ref: `item:${l.id}`, amount: String(l.quantity) })),
    ],
  }));
}

const numberOf = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));

/** What the service takes; the draft's line order is kept per side (currencies, items). */
export function rewardsOf(drafts: ReadonlyArray<TierDraft>): Rewards {
  return drafts.map((d) => {
    const where =
      d.kind === "rank"
        ? { rank: numberOf(d.from) }
        : d.kind === "range"
          ? { fromRank: numberOf(d.from), toRank: numberOf(d.to) }
          : { topPercent: numberOf(d.from) };
    const side = (kind: string) => d.lines.filter((l) => l.ref.startsWith(`${kind}:`));
    return {
      ...where,
      currencies: side("currency").map((l) => ({ id: l.ref.slice("currency:".length), amount: numberOf(l.amount) })),
      items: side("item").map((l) => ({ id: l.ref.slice("item:".length), quantity: numberOf(l.amount) })),
    };
  });
}

/** The draft line a service path's `[side, index]` names (currencies first in rewardsOf, then items, each in draft order). */
function lineIndexOf(d: TierDraft, side: "currencies" | "items", index: number): number {
  const prefix = side === "currencies" ? "currency:" : "item:";
  let seen = -1;
  for (let j = 0; j < d.lines.length; j++) {
    if (d.lines[j]?.ref.startsWith(prefix)) seen++;
    if (seen === index) return j;
  }
  return -1;
}

/**
 * Every problem of the table, each on its input under `rewards.<tier>`: `from`, `to`, `lines`
 * (the tier grants nothing), or `lines.<j>.ref` / `lines.<j>.amount`. Incomplete inputs first
 * (a line with no pick, an empty number), then the service's rules.
 */
export function tierProblems(drafts: ReadonlyArray<TierDraft>): Problem[] {
  const own: Problem[] = [];
  drafts.forEach((d, i) => {
    const tier = `Tier ${i + 1}`;
    if (d.from.trim() === "")
      own.push({ path: ["rewards", i, "from"], message: `${tier}: enter ${d.kind === "percent" ? "a percent" : "a rank"}.` });
    if (d.kind === "range" && d.to.trim() === "") own.push({ path: ["rewards", i, "to"], message: `${tier}: enter the last rank.` });
    d.lines.forEach((l, j) => {
      if (!l.ref) own.push({ path: ["rewards", i, "lines", j, "ref"], message: `${tier}, line ${j + 1}: pick a currency or an item.` });
      else if (l.amount.trim() === "")
        own.push({ path: ["rewards", i, "lines", j, "amount"], message: `${tier}, line ${j + 1}: enter an amount.` });
    });
  });
  if (own.length) return own;
  const parsed = ZRewards.safeParse(rewardsOf(drafts), plainly);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const [i, field, index, leaf] = issue.path;
    const message = plainParsed(issue);
    if (typeof i !== "number") return { path: ["rewards"], message };
    const d = drafts[i] as TierDraft;
    const tier = `Tier ${i + 1}`;
    if ((field === "currencies" || field === "items") && typeof index === "number") {
      const j = lineIndexOf(d, field, index);
      return { path: ["rewards", i, "lines", j, leaf === "id" ? "ref" : "amount"], message: `${tier}, line ${j + 1}: ${message}` };
    }
    if (field === "currencies" || field === "items") return { path: ["rewards", i, "lines"], message: `${tier}: ${message}` };
    return { path: ["rewards", i, field === "toRank" ? "to" : "from"], message: `${tier}: ${message}` };
  });
}

type Names = ReadonlyMap<string, string>;

/** Where a tier pays, in words: "#1", "#2–#3", "Top 10 %". */
export function tierPlace(t: RewardTier): string {
  if (t.rank !== undefined) return `#${t.rank}`;
  if (t.fromRank !== undefined && t.toRank !== undefined) return t.fromRank === t.toRank ? `#${t.fromRank}` : `#${t.fromRank}–#${t.toRank}`;
  return `Top ${t.topPercent} %`;
}

/** "#2–#3: 50 Gems, 1 Shield" with the project's names (`currency:<id>` / `item:<id>` → name; the id until they load). */
export function tierInWords(t: RewardTier, names: Names = new Map()): string {
  const grants = [
    ...t.currencies.map((l) => countOf(l.amount, names.get(`currency:${l.id}`) ?? l.id)),
    ...t.items.map((l) => countOf(l.quantity, names.get(`item:${l.id}`) ?? l.id)),
  ];
  return `${tierPlace(t)}: ${grants.join(", ")}`;
}
