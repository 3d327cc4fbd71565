"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery } from "@tanstack/react-query";
import { Plus, Save } from "lucide-react";
import { useMemo } from "react";
import { Controller, type Path, type UseFormSetError, useForm } from "react-hook-form";
import { z } from "zod";
import { useTRPC } from "@/components/providers/trpc";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { MAX_SAFE_SCORE, type RewardTier, ZBoardPatch, ZNewBoard } from "@/server/services/leaderboards/board-schemas";
import { applyServerError } from "./errors";
import { checkedWith } from "./form-schema";
import { localOfIso, whenUtcAndLocal } from "./live-format";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";
import { draftsOf, rewardsOf, tierProblems, ZTierDraft } from "./reward-tiers";
import { RewardTiersEditor } from "./rewards-editor";

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
  /** The rewards table's tiers as typed (none: no rewards). */
  rewards: z.array(ZTierDraft),
  /** A limited-time board's window: datetime-local values in the operator's time zone (empty: open on that side). */
  startsAt: z.string(),
  endsAt: z.string(),
});
export type BoardFields = z.input<typeof ZBoardFields>;

const bound = (text: string) => (text.trim() === "" ? null : Number(text));
/** A datetime-local value (the operator's zone) as an ISO instant; empty: none; not a date: as typed (the schema refuses it). */
function instantOf(text: string): string | null {
  if (text.trim() === "") return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? text : at.toISOString();
}
/** What the services take: numbers or null for bounds, the schedule's text or null. */
const definitionOf = (f: BoardFields) => ({
  name: f.name,
  minScore: bound(f.minScore),
  maxScore: bound(f.maxScore),
  resetSchedule: f.schedule === "never" ? null : f.schedule === "cron" ? f.cron.trim() : f.schedule,
  clientWritable: f.clientWritable,
  scoreEvents: f.scoreEvents,
  rewards: rewardsOf(f.rewards),
  startsAt: instantOf(f.startsAt),
  endsAt: instantOf(f.endsAt),
});
/** The service's rules (ids, names, bounds in order, the schedule's shape) on what would be sent; the schedule's issues go to the cron field. */
const rename = { resetSchedule: "cron" };
const ZCreateForm = checkedWith(
  ZBoardFields,
  (f) => ({ id: f.id, sortOrder: f.sortOrder, operator: f.operator, ...definitionOf(f) }),
  ZNewBoard,
  { rename, check: (f) => tierProblems(f.rewards) },
);
const ZEditForm = checkedWith(ZBoardFields, definitionOf, ZBoardPatch, { rename, check: (f) => tierProblems(f.rewards) });
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
  rewards: [],
  startsAt: "",
  endsAt: "",
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
  rewards: ReadonlyArray<RewardTier>;
  startsAt: string | null;
  endsAt: string | null;
}): BoardFields {
  const named = board.resetSchedule === null || ["daily", "weekly", "monthly"].includes(board.resetSchedule);
  return {
    id: board.id,
    name: board.name,
    sortOrder: board.sortOrder,
    operator: board.operator,
    clientWritable: board.clientWritable,
    scoreEvents: board.scoreEvents,
    rewards: draftsOf(board.rewards),
    startsAt: localOfIso(board.startsAt),
    endsAt: localOfIso(board.endsAt),
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
const FIELDS = [
  "id",
  "name",
  "minScore",
  "maxScore",
  "cron",
  "rewards",
  "startsAt",
  "endsAt",
  "resetSchedule" as Path<BoardFields>,
] as const;

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
  const tiers = form.watch("rewards");
  const [startsAt, endsAt] = form.watch(["startsAt", "endsAt"]);
  const options = useRewardOptions();
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
      <Field
        label="Scores accepted from (your time, optional)"
        htmlFor={`${p}-starts`}
        error={errors.startsAt}
        hint={windowHint(startsAt, "open from the start")}
      >
        <Input id={`${p}-starts`} type="datetime-local" aria-invalid={invalid("startsAt")} {...form.register("startsAt")} />
      </Field>
      <Field
        label="Scores accepted until (your time, optional)"
        htmlFor={`${p}-ends`}
        error={errors.endsAt}
        hint={windowHint(endsAt, "no end")}
      >
        <Input id={`${p}-ends`} type="datetime-local" aria-invalid={invalid("endsAt")} {...form.register("endsAt")} />
      </Field>
      <div className="sm:col-span-2 lg:col-span-3">
        <RewardTiersEditor prefix={p} control={form.control} register={form.register} errors={errors} options={options} tiers={tiers} />
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

/** The window's instant in UTC and in the operator's zone, or what an empty field means. */
function windowHint(local: string, empty: string): string {
  const iso = instantOf(local);
  if (!iso || iso === local) return empty;
  const w = whenUtcAndLocal(iso);
  return `${w.utc} (${w.local})`;
}

/** The project's currencies and items for the reward lines: "currency:<id>" / "item:<id>" with their names. */
function useRewardOptions(): Array<{ value: string; label: string }> {
  const trpc = useTRPC();
  const { projectId } = useProject();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  return useMemo(
    () => [
      ...(currencies.data ?? []).map((c) => ({ value: `currency:${c.id}`, label: `Currency: ${c.name} (${c.id})` })),
      ...(items.data ?? []).map((i) => ({ value: `item:${i.id}`, label: `Item: ${i.name} (${i.id})` })),
    ],
    [currencies.data, items.data],
  );
}
