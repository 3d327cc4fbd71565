"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { Plus, Save } from "lucide-react";
import { Controller, type Path, type UseFormSetError, useForm } from "react-hook-form";
import { z } from "zod";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { MAX_SAFE_SCORE, type Rewards, ZBoardPatch, ZNewBoard, ZRewards } from "@/server/services/leaderboards/board-schemas";
import { applyServerError } from "./errors";
import { checkedWith } from "./form-schema";
import { whereInRewards } from "./format";
import { plainly } from "./plain-issues";

type Operator = "best" | "latest" | "increment" | "decrement";
type Schedule = "never" | "daily" | "weekly" | "monthly" | "cron";

/** The fields as the form holds them: bounds as typed (empty: none), the schedule picked and a cron expression apart. */
const ZBoardFields = z.object({
  id: z.string(),
  name: z.string(),
  sortOrder: z.enum(["desc", "asc"]),
  operator: z.enum(["best", "latest", "increment", "decrement"]),
  minScore: z.string(),
  maxScore: z.string(),
  schedule: z.enum(["never", "daily", "weekly", "monthly", "cron"]),
  cron: z.string(),
  clientWritable: z.boolean(),
  scoreEvents: z.boolean(),
  /** The rewards table as JSON text (empty: none). */
  rewards: z.string(),
});
export type BoardFields = z.input<typeof ZBoardFields>;

const bound = (text: string) => (text.trim() === "" ? null : Number(text));
/** The rewards text as JSON, or undefined when it is not JSON (the check reports that). */
function rewardsOf(text: string): unknown {
  if (text.trim() === "") return [];
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
/** The rewards' problems on the one rewards field: not JSON, or the first rule it breaks with where (tier, line). */
function rewardsProblems(f: BoardFields): Array<{ path: PropertyKey[]; message: string }> {
  const value = rewardsOf(f.rewards);
  if (value === undefined) return [{ path: ["rewards"], message: "The rewards are not valid JSON." }];
  const parsed = ZRewards.safeParse(value);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (!issue) return [];
  return [{ path: ["rewards"], message: `${whereInRewards(issue.path)}${issue.message}` }];
}
/** What the services take: numbers or null for bounds, the schedule's text or null. */
const definitionOf = (f: BoardFields) => ({
  name: f.name,
  minScore: bound(f.minScore),
  maxScore: bound(f.maxScore),
  resetSchedule: f.schedule === "never" ? null : f.schedule === "cron" ? f.cron.trim() : f.schedule,
  clientWritable: f.clientWritable,
  scoreEvents: f.scoreEvents,
  rewards: (rewardsOf(f.rewards) ?? []) as Rewards,
});
/** The service's rules (ids, names, bounds in order, the schedule's shape) on what would be sent; the schedule's issues go to the cron field. */
const rename = { resetSchedule: "cron" };
const ZCreateForm = checkedWith(
  ZBoardFields,
  (f) => ({ id: f.id, sortOrder: f.sortOrder, operator: f.operator, ...definitionOf(f) }),
  ZNewBoard,
  { rename, check: rewardsProblems },
);
const ZEditForm = checkedWith(ZBoardFields, definitionOf, ZBoardPatch, { rename, check: rewardsProblems });
export type NewBoard = z.output<typeof ZCreateForm>;
export type BoardPatch = z.output<typeof ZEditForm>;

export const emptyBoard: BoardFields = {
  id: "",
  name: "",
  sortOrder: "desc",
  operator: "best",
  minScore: "",
  maxScore: "",
  schedule: "never",
  cron: "",
  clientWritable: true,
  scoreEvents: false,
  rewards: "",
};

export function fieldsOf(board: {
  id: string;
  name: string;
  sortOrder: "desc" | "asc";
  operator: Operator;
  minScore: number | null;
  maxScore: number | null;
  resetSchedule: string | null;
  clientWritable: boolean;
  scoreEvents: boolean;
  rewards: unknown[];
}): BoardFields {
  const named = board.resetSchedule === null || ["daily", "weekly", "monthly"].includes(board.resetSchedule);
  return {
    id: board.id,
    name: board.name,
    sortOrder: board.sortOrder,
    operator: board.operator,
    clientWritable: board.clientWritable,
    scoreEvents: board.scoreEvents,
    rewards: board.rewards.length ? JSON.stringify(board.rewards, null, 2) : "",
    minScore: board.minScore === null ? "" : String(board.minScore),
    maxScore: board.maxScore === null ? "" : String(board.maxScore),
    schedule: board.resetSchedule === null ? "never" : named ? (board.resetSchedule as Schedule) : "cron",
    cron: named ? "" : (board.resetSchedule ?? ""),
  };
}

const SORTS = [
  { value: "desc", label: "Higher is better" },
  { value: "asc", label: "Lower is better (times)" },
] as const;
const OPERATORS = [
  { value: "best", label: "best: keep the better score" },
  { value: "latest", label: "latest: keep the last score" },
  { value: "increment", label: "increment: add" },
  { value: "decrement", label: "decrement: subtract" },
] as const;
const SCHEDULES = [
  { value: "never", label: "Never (one all-time period)" },
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly (Mondays)" },
  { value: "monthly", label: "Monthly" },
  { value: "cron", label: "Cron expression…" },
] as const;
/** The service names the schedule `resetSchedule`; the form's text for it is the cron field (a named schedule never fails). */
const FIELDS = ["id", "name", "minScore", "maxScore", "cron", "rewards", "resetSchedule" as Path<BoardFields>] as const;

type Props =
  | { mode: "create"; initial: BoardFields; onSubmit: (board: NewBoard) => Promise<unknown>; onCancel?: () => void }
  | { mode: "edit"; initial: BoardFields; onSubmit: (patch: BoardPatch) => Promise<unknown>; onCancel?: () => void };

/**
 * Create (every field) or edit (id, sort order and operator shown but fixed after creation). The
 * caller's `onSubmit` runs the mutation; a failure it throws lands on the field the server names
 * (`ALREADY_EXISTS` on the id), anything else under the form.
 */
export function LeaderboardForm(props: Props) {
  const { mode, initial, onCancel } = props;
  const fixed = mode === "edit";
  const form = useForm<BoardFields, unknown, NewBoard | BoardPatch>({
    resolver: zodResolver(fixed ? ZEditForm : ZCreateForm, plainly) as never,
    defaultValues: initial,
  });
  const errors = form.formState.errors;
  const schedule = form.watch("schedule");
  const submit = form.handleSubmit(async (values) => {
    try {
      if (props.mode === "create") await props.onSubmit(values as NewBoard);
      else await props.onSubmit(values as BoardPatch);
      if (props.mode === "create") form.reset(emptyBoard);
    } catch (error) {
      const setError: UseFormSetError<BoardFields> = (name, problem, options) =>
        form.setError(name === ("resetSchedule" as Path<BoardFields>) ? "cron" : name, problem, options);
      applyServerError(error, setError, FIELDS, { ALREADY_EXISTS: "id" });
    }
  });
  const p = `lb-${mode}`;
  const invalid = (name: keyof BoardFields) => (errors[name] ? true : undefined);
  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
      <Field label="Leaderboard id" htmlFor={`${p}-id`} error={errors.id} hint={fixed ? undefined : "1–64 of a-z, 0-9, _ and -"}>
        {fixed ? (
          <Input id={`${p}-id`} value={initial.id} disabled readOnly />
        ) : (
          <Input id={`${p}-id`} placeholder="high-scores" autoComplete="off" aria-invalid={invalid("id")} {...form.register("id")} />
        )}
      </Field>
      <Field label="Name" htmlFor={`${p}-name`} error={errors.name}>
        <Input id={`${p}-name`} placeholder="High scores" aria-invalid={invalid("name")} {...form.register("name")} />
      </Field>
      <Field label={`Sort order${fixed ? " (fixed)" : ""}`} htmlFor={`${p}-sort`}>
        <Controller
          control={form.control}
          name="sortOrder"
          render={({ field }) => (
            <SelectMenu
              id={`${p}-sort`}
              className="w-full"
              disabled={fixed}
              value={field.value}
              onValueChange={field.onChange}
              onBlur={field.onBlur}
              options={SORTS}
            />
          )}
        />
      </Field>
      <Field label={`Operator${fixed ? " (fixed)" : ""}`} htmlFor={`${p}-operator`}>
        <Controller
          control={form.control}
          name="operator"
          render={({ field }) => (
            <SelectMenu
              id={`${p}-operator`}
              className="w-full"
              disabled={fixed}
              value={field.value}
              onValueChange={field.onChange}
              onBlur={field.onBlur}
              options={OPERATORS}
            />
          )}
        />
      </Field>
      <Field label="Minimum score" htmlFor={`${p}-min`} error={errors.minScore}>
        <Input
          id={`${p}-min`}
          type="number"
          step="any"
          min={-MAX_SAFE_SCORE}
          max={MAX_SAFE_SCORE}
          placeholder="none"
          aria-invalid={invalid("minScore")}
          {...form.register("minScore")}
        />
      </Field>
      <Field label="Maximum score" htmlFor={`${p}-max`} error={errors.maxScore}>
        <Input
          id={`${p}-max`}
          type="number"
          step="any"
          min={-MAX_SAFE_SCORE}
          max={MAX_SAFE_SCORE}
          placeholder="none"
          aria-invalid={invalid("maxScore")}
          {...form.register("maxScore")}
        />
      </Field>
      <Field label="Reset schedule (UTC)" htmlFor={`${p}-schedule`}>
        <Controller
          control={form.control}
          name="schedule"
          render={({ field }) => (
            <SelectMenu
              id={`${p}-schedule`}
              className="w-full"
              value={field.value}
              onValueChange={field.onChange}
              onBlur={field.onBlur}
              options={SCHEDULES}
            />
          )}
        />
      </Field>
      {schedule === "cron" && (
        <Field label="Cron expression (5 fields)" htmlFor={`${p}-cron`} error={errors.cron}>
          <Input id={`${p}-cron`} placeholder="0 18 * * 5" aria-invalid={invalid("cron")} {...form.register("cron")} />
        </Field>
      )}
      <div className="flex items-center gap-2 sm:pt-6">
        <input id={`${p}-writable`} type="checkbox" className="size-4 accent-zinc-900" {...form.register("clientWritable")} />
        <label htmlFor={`${p}-writable`} className="text-sm text-zinc-700">
          Game clients may submit (off: server keys only)
        </label>
      </div>
      <div className="flex items-center gap-2 sm:pt-6">
        <input id={`${p}-score-events`} type="checkbox" className="size-4 accent-zinc-900" {...form.register("scoreEvents")} />
        <label htmlFor={`${p}-score-events`} className="text-sm text-zinc-700">
          Send a webhook event for every accepted score
        </label>
      </div>
      <div className="sm:col-span-2 lg:col-span-3">
        <Field
          label="Rewards when a period closes (JSON, optional)"
          htmlFor={`${p}-rewards`}
          error={errors.rewards}
          hint='Tiers best first, e.g. [{"rank": 1, "currencies": [{"id": "gems", "amount": 100}]}, {"fromRank": 2, "toRank": 10, "items": [{"id": "trophy", "quantity": 1}]}, {"topPercent": 10, "currencies": [{"id": "gems", "amount": 5}]}]'
        >
          <textarea
            id={`${p}-rewards`}
            rows={4}
            spellCheck={false}
            placeholder="none"
            aria-invalid={invalid("rewards")}
            className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 font-mono text-xs text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
            {...form.register("rewards")}
          />
        </Field>
      </div>
      <div className="sm:col-span-2 lg:col-span-3">
        <FieldError error={errors.root?.server} />
        <div className="mt-1 flex gap-2">
          <Button type="submit" disabled={form.formState.isSubmitting}>
            {mode === "create" ? (
              <>
                <Plus className="mr-1 size-4" aria-hidden />
                Create leaderboard
              </>
            ) : (
              <>
                <Save className="mr-1 size-4" aria-hidden />
                Save changes
              </>
            )}
          </Button>
          {onCancel && (
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </div>
      </div>
    </form>
  );
}
