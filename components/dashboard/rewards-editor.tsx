"use client";

import { ArrowDown, ArrowUp, Plus, Trash2 } from "lucide-react";
import { type Control, Controller, type FieldErrors, type UseFormRegister, useFieldArray } from "react-hook-form";
import { FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { SelectMenu, type SelectOption } from "@/components/ui/select";
import { MAX_LINES } from "@/server/services/economy/schemas";
import type { BoardFields, BoardPatch, NewBoard } from "./leaderboards-form";
import { FormLine } from "./line-editor";
import { emptyTier, MAX_REWARD_TIERS, TIER_KINDS, type TierDraft } from "./reward-tiers";

type Message = { message?: string } | undefined;
type TierErrors = {
  from?: Message;
  to?: Message;
  lines?: Array<{ ref?: Message; amount?: Message } | undefined> & { root?: Message; message?: string };
};

type Props = {
  /** `lb-create` / `lb-edit`: ids stay unique with both forms on a page. */
  prefix: string;
  control: Control<BoardFields, unknown, NewBoard | BoardPatch>;
  register: UseFormRegister<BoardFields>;
  errors: FieldErrors<BoardFields>;
  /** The project's currencies and items: "currency:<id>" / "item:<id>" with their names. */
  options: ReadonlyArray<SelectOption<string>>;
  tiers: ReadonlyArray<TierDraft>;
};

/**
 * The rewards table as a list of tiers, best first: each tier a single rank, a rank range or a
 * top percent, and lines of a currency or an item with an amount. Tiers are added, removed and
 * moved; every problem shows on its input in words ("Tier 2: …").
 */
export function RewardTiersEditor({ prefix, control, register, errors, options, tiers }: Props) {
  const list = useFieldArray({ control, name: "rewards" });
  const tierErrors = errors.rewards as unknown as (Array<TierErrors | undefined> & { message?: string; root?: Message }) | undefined;
  return (
    <fieldset className="min-w-0 rounded-md border border-zinc-200 p-3" data-testid="reward-tiers">
      <legend className="px-1 text-sm font-medium text-zinc-700">Rewards when a period closes</legend>
      <p className="mb-2 text-xs text-zinc-500">
        Tiers best first: single ranks and rank ranges in order, then top-percent tiers with growing percents (each pays the ranks after the
        tier before it).
      </p>
      {list.fields.length === 0 && <p className="mb-2 text-sm text-zinc-500">No rewards.</p>}
      <ol className="space-y-3">
        {list.fields.map((field, index) => (
          <li key={field.id} className="rounded-md border border-zinc-200 p-3" data-testid="reward-tier">
            <Tier
              prefix={`${prefix}-tier-${index}`}
              index={index}
              count={list.fields.length}
              kind={tiers[index]?.kind ?? "rank"}
              control={control}
              register={register}
              errors={tierErrors?.[index]}
              options={options}
              onMove={(to) => list.move(index, to)}
              onRemove={() => list.remove(index)}
            />
          </li>
        ))}
      </ol>
      <FieldError error={tierErrors?.root ?? (tierErrors?.message ? { message: tierErrors.message } : undefined)} />
      <Button
        variant="secondary"
        className="mt-2"
        disabled={list.fields.length >= MAX_REWARD_TIERS}
        onClick={() => list.append(emptyTier())}
      >
        <Plus className="mr-1 size-4" aria-hidden />
        Add tier
      </Button>
    </fieldset>
  );
}

function Tier({
  prefix,
  index,
  count,
  kind,
  control,
  register,
  errors,
  options,
  onMove,
  onRemove,
}: {
  prefix: string;
  index: number;
  count: number;
  kind: TierDraft["kind"];
  control: Control<BoardFields, unknown, NewBoard | BoardPatch>;
  register: UseFormRegister<BoardFields>;
  errors: TierErrors | undefined;
  options: ReadonlyArray<SelectOption<string>>;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  const lines = useFieldArray({ control, name: `rewards.${index}.lines` });
  const fromLabel = kind === "percent" ? `Tier ${n} top percent` : kind === "range" ? `Tier ${n} first rank` : `Tier ${n} rank`;
  const lineErrors = errors?.lines;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-end gap-2">
        <div>
          <label htmlFor={`${prefix}-kind`} className="mb-1 block text-xs font-medium text-zinc-700">
            Tier {n} pays
          </label>
          <Controller
            control={control}
            name={`rewards.${index}.kind`}
            render={({ field }) => (
              <SelectMenu
                id={`${prefix}-kind`}
                className="w-40"
                value={field.value}
                onValueChange={field.onChange}
                onBlur={field.onBlur}
                options={TIER_KINDS}
              />
            )}
          />
        </div>
        <div className="w-32">
          <label htmlFor={`${prefix}-from`} className="mb-1 block text-xs font-medium text-zinc-700">
            {fromLabel}
          </label>
          <Input
            id={`${prefix}-from`}
            type="number"
            min={kind === "percent" ? 0 : 1}
            step={kind === "percent" ? "any" : 1}
            aria-invalid={errors?.from ? true : undefined}
            aria-describedby={errors?.from ? `${prefix}-from-error` : undefined}
            {...register(`rewards.${index}.from`)}
          />
        </div>
        {kind === "range" && (
          <div className="w-32">
            <label htmlFor={`${prefix}-to`} className="mb-1 block text-xs font-medium text-zinc-700">
              Tier {n} last rank
            </label>
            <Input
              id={`${prefix}-to`}
              type="number"
              min={1}
              step={1}
              aria-invalid={errors?.to ? true : undefined}
              aria-describedby={errors?.to ? `${prefix}-to-error` : undefined}
              {...register(`rewards.${index}.to`)}
            />
          </div>
        )}
        <div className="ml-auto flex gap-1">
          <Button variant="secondary" aria-label={`Move tier ${n} up`} disabled={index === 0} onClick={() => onMove(index - 1)}>
            <ArrowUp className="size-4" aria-hidden />
          </Button>
          <Button variant="secondary" aria-label={`Move tier ${n} down`} disabled={index === count - 1} onClick={() => onMove(index + 1)}>
            <ArrowDown className="size-4" aria-hidden />
          </Button>
          <Button variant="secondary" aria-label={`Remove tier ${n}`} onClick={onRemove}>
            <Trash2 className="size-4" aria-hidden />
          </Button>
        </div>
      </div>
      <FieldError id={`${prefix}-from-error`} error={errors?.from} />
      <FieldError id={`${prefix}-to-error`} error={errors?.to} />
      {lines.fields.map((line, j) => (
        <FormLine
          key={line.id}
          control={control}
          names={{ ref: `rewards.${index}.lines.${j}.ref`, amount: `rewards.${index}.lines.${j}.amount` }}
          options={options}
          labels={{ pick: `Tier ${n} line ${j + 1}`, amount: `Tier ${n} line ${j + 1} amount`, remove: `Remove tier ${n} line ${j + 1}` }}
          errors={lineErrors?.[j]}
          onRemove={() => lines.remove(j)}
        />
      ))}
      <FieldError error={lineErrors?.root ?? (lineErrors?.message ? { message: lineErrors.message } : undefined)} />
      <Button
        variant="secondary"
        aria-label={`Add a line to tier ${n}`}
        disabled={lines.fields.length >= 2 * MAX_LINES}
        onClick={() => lines.append({ ref: "", amount: "" })}
      >
        <Plus className="mr-1 size-4" aria-hidden />
        Add a line
      </Button>
    </div>
  );
}
