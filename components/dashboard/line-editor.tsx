"use client";

import { X } from "lucide-react";
import type { InputHTMLAttributes } from "react";
import { type Control, type FieldPath, type FieldValues, useController } from "react-hook-form";
import { FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { SelectMenu, type SelectOption } from "@/components/ui/select";

type Message = { message?: string } | undefined;

/**
 * One line of a cost or reward list (a purchase's costs and rewards, a board tier's rewards, a
 * store product's rewards): a currency or an item ("currency:<id>" / "item:<id>") picked from
 * `options`, an amount, and Remove. On a phone the pick has the whole row (names are long); the
 * amount and Remove go below it.
 */
export function LineInputs({
  options,
  pick,
  amount,
  removeLabel,
  onRemove,
  className = "flex flex-wrap gap-2 sm:flex-nowrap",
}: {
  options: ReadonlyArray<SelectOption<string>>;
  pick: { label: string; value: string; onChange: (ref: string) => void; onBlur?: () => void; invalid?: boolean };
  /** The amount input's own props: its label, its value or registration, `max` where there is one. */
  amount: InputHTMLAttributes<HTMLInputElement> & { "aria-label": string };
  removeLabel: string;
  onRemove: () => void;
  className?: string;
}) {
  return (
    <div className={className}>
      <SelectMenu
        aria-label={pick.label}
        className="min-w-0 flex-1 basis-full sm:basis-0"
        value={pick.value}
        onValueChange={pick.onChange}
        onBlur={pick.onBlur}
        options={options}
        placeholder="Pick a currency or an item"
        aria-invalid={pick.invalid}
      />
      {/* The input is w-full: its width comes from this wrapper. */}
      <div className="w-28 shrink-0">
        <Input placeholder="Amount" type="number" min={1} step={1} {...amount} />
      </div>
      <Button variant="secondary" aria-label={removeLabel} onClick={onRemove}>
        <X className="size-4" aria-hidden />
      </Button>
    </div>
  );
}

/**
 * A line held by a react-hook-form field array (its pick and its amount as typed), with the
 * line's first problem below it.
 */
export function FormLine<F extends FieldValues, T>({
  control,
  names,
  options,
  labels,
  max,
  errors,
  onRemove,
  className,
}: {
  control: Control<F, unknown, T>;
  /** The line's two fields: `costs.0.ref` and `costs.0.amount`. */
  names: { ref: FieldPath<F>; amount: FieldPath<F> };
  options: ReadonlyArray<SelectOption<string>>;
  labels: { pick: string; amount: string; remove: string };
  max?: number;
  errors: { ref?: Message; amount?: Message } | undefined;
  onRemove: () => void;
  className?: string;
}) {
  const pick = useController({ control, name: names.ref }).field;
  const amount = useController({ control, name: names.amount }).field;
  return (
    <div className={className}>
      <LineInputs
        options={options}
        pick={{
          label: labels.pick,
          value: pick.value,
          onChange: pick.onChange,
          onBlur: pick.onBlur,
          invalid: errors?.ref ? true : undefined,
        }}
        amount={{ "aria-label": labels.amount, max, "aria-invalid": errors?.amount ? true : undefined, ...amount }}
        removeLabel={labels.remove}
        onRemove={onRemove}
      />
      <FieldError error={errors?.ref ?? errors?.amount} />
    </div>
  );
}
