"use client";

import { Plus } from "lucide-react";
import type { ReactNode } from "react";
import { FieldError } from "@/components/ui/field";
import { Button, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import type { PendingChange } from "./live-reason";
import { plainServerIssue } from "./plain-issues";

/**
 * The pieces every live-ops card (audiences, experiments, config keys and their overrides) shows
 * the same way: the card's "New …" button, the list's loading, error and empty states, the table's
 * unnamed actions column, a form's first problem in words, and its refusal with submit and Cancel.
 */

/** A card's create-or-edit form: `onSave` hands the change to confirm; `onSaved` closes the form after it. */
export type LiveFormProps<T> = {
  initial: T | null;
  onCancel: () => void;
  onSave: (c: PendingChange) => void;
  onSaved: () => void;
};

/** "New audience", "Add override": shown to editors while no form of the card is open. */
export function NewButton({ shown, onClick, children }: { shown: boolean; onClick: () => void; children: ReactNode }) {
  if (!shown) return null;
  return (
    <Button onClick={onClick}>
      <Plus className="mr-1 size-4" aria-hidden />
      {children}
    </Button>
  );
}

/** The head of a table's last column (its row buttons): named for screen readers only. */
export const ACTIONS_HEAD = (
  <span key="a" className="sr-only">
    Actions
  </span>
);

/** A list's loading, error and empty states; `children` renders the rows once there are some. */
export function Listing<T>({
  query,
  loading,
  empty,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T[] | undefined };
  loading: string;
  empty: ReactNode;
  children: (rows: T[]) => ReactNode;
}) {
  if (query.isPending) return <State kind="loading">{loading}</State>;
  if (query.error) return <State kind="error">{messageOf(query.error)}</State>;
  if (!query.data?.length) return <State kind="empty">{empty}</State>;
  return children(query.data);
}

/** A live-ops form's refusal (`root.server`), then its submit button and Cancel. */
export function FormEnd({
  error,
  submit,
  onCancel,
  className = "flex gap-2",
}: {
  error: { message?: string } | undefined;
  submit: string;
  onCancel: () => void;
  className?: string;
}) {
  return (
    <>
      <FieldError error={error} />
      <div className={className}>
        <Button type="submit">{submit}</Button>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </>
  );
}

/** The first problem a schema found, in words with its place ("Rule 2 value: …"); `fallback` if none. */
export function firstProblem(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, fallback: string): string {
  const issue = issues[0];
  return issue ? plainServerIssue({ path: issue.path.join("."), message: issue.message }, { place: true }) : fallback;
}
