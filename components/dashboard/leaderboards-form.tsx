"use client";

import { type FormEvent, useState } from "react";
import { Button, Input, Label, Select } from "@/components/ui/primitives";

/** The fields of a leaderboard as the form holds them (text inputs; empty bounds are "none"). */
export type BoardFields = {
  id: string;
  name: string;
  sortOrder: "desc" | "asc";
  operator: "best" | "latest" | "increment" | "decrement";
  minScore: string;
  maxScore: string;
  schedule: "" | "daily" | "weekly" | "monthly" | "cron";
  cron: string;
  clientWritable: boolean;
};

export const emptyBoard: BoardFields = {
  id: "",
  name: "",
  sortOrder: "desc",
  operator: "best",
  minScore: "",
  maxScore: "",
  schedule: "",
  cron: "",
  clientWritable: true,
};

export function fieldsOf(board: {
  id: string;
  name: string;
  sortOrder: "desc" | "asc";
  operator: BoardFields["operator"];
  minScore: number | null;
  maxScore: number | null;
  resetSchedule: string | null;
  clientWritable: boolean;
}): BoardFields {
  const named = board.resetSchedule === null || ["daily", "weekly", "monthly"].includes(board.resetSchedule);
  return {
    ...board,
    minScore: board.minScore === null ? "" : String(board.minScore),
    maxScore: board.maxScore === null ? "" : String(board.maxScore),
    schedule: named ? ((board.resetSchedule ?? "") as BoardFields["schedule"]) : "cron",
    cron: named ? "" : (board.resetSchedule ?? ""),
  };
}

/** What the services take: numbers or null for bounds, the schedule's text or null. */
export function definitionOf(f: BoardFields) {
  return {
    name: f.name,
    minScore: f.minScore.trim() === "" ? null : Number(f.minScore),
    maxScore: f.maxScore.trim() === "" ? null : Number(f.maxScore),
    resetSchedule: f.schedule === "" ? null : f.schedule === "cron" ? f.cron.trim() : f.schedule,
    clientWritable: f.clientWritable,
  };
}

/** Create (every field) or edit (id, sort order and operator shown but fixed after creation). */
export function LeaderboardForm({
  initial,
  mode,
  pending,
  onSubmit,
  onCancel,
}: {
  initial: BoardFields;
  mode: "create" | "edit";
  pending: boolean;
  onSubmit: (fields: BoardFields) => void;
  onCancel?: () => void;
}) {
  const [f, setF] = useState(initial);
  const set = <K extends keyof BoardFields>(key: K, value: BoardFields[K]) => setF((previous) => ({ ...previous, [key]: value }));
  const fixed = mode === "edit";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(f);
  };
  const prefix = `lb-${mode}`;
  return (
    <form onSubmit={submit} className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
      <div>
        <Label htmlFor={`${prefix}-id`}>Leaderboard id</Label>
        <Input
          id={`${prefix}-id`}
          value={f.id}
          onChange={(e) => set("id", e.target.value)}
          disabled={fixed}
          required
          placeholder="high-scores"
          pattern="[a-z0-9][a-z0-9_\-]{0,63}"
          title="1–64 of a-z, 0-9, _ and -"
        />
      </div>
      <div>
        <Label htmlFor={`${prefix}-name`}>Name</Label>
        <Input id={`${prefix}-name`} value={f.name} onChange={(e) => set("name", e.target.value)} required maxLength={100} />
      </div>
      <div>
        <Label htmlFor={`${prefix}-sort`}>Sort order{fixed ? " (fixed)" : ""}</Label>
        <Select
          id={`${prefix}-sort`}
          className="w-full"
          value={f.sortOrder}
          disabled={fixed}
          onChange={(e) => set("sortOrder", e.target.value as BoardFields["sortOrder"])}
        >
          <option value="desc">Higher is better</option>
          <option value="asc">Lower is better (times)</option>
        </Select>
      </div>
      <div>
        <Label htmlFor={`${prefix}-operator`}>Operator{fixed ? " (fixed)" : ""}</Label>
        <Select
          id={`${prefix}-operator`}
          className="w-full"
          value={f.operator}
          disabled={fixed}
          onChange={(e) => set("operator", e.target.value as BoardFields["operator"])}
        >
          <option value="best">best: keep the better score</option>
          <option value="latest">latest: keep the last score</option>
          <option value="increment">increment: add</option>
          <option value="decrement">decrement: subtract</option>
        </Select>
      </div>
      <div>
        <Label htmlFor={`${prefix}-min`}>Minimum score</Label>
        <Input
          id={`${prefix}-min`}
          type="number"
          step="any"
          placeholder="none"
          value={f.minScore}
          onChange={(e) => set("minScore", e.target.value)}
        />
      </div>
      <div>
        <Label htmlFor={`${prefix}-max`}>Maximum score</Label>
        <Input
          id={`${prefix}-max`}
          type="number"
          step="any"
          placeholder="none"
          value={f.maxScore}
          onChange={(e) => set("maxScore", e.target.value)}
        />
      </div>
      <div>
        <Label htmlFor={`${prefix}-schedule`}>Reset schedule (UTC)</Label>
        <Select
          id={`${prefix}-schedule`}
          className="w-full"
          value={f.schedule}
          onChange={(e) => set("schedule", e.target.value as BoardFields["schedule"])}
        >
          <option value="">Never (one all-time period)</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly (Mondays)</option>
          <option value="monthly">Monthly</option>
          <option value="cron">Cron expression…</option>
        </Select>
      </div>
      {f.schedule === "cron" && (
        <div>
          <Label htmlFor={`${prefix}-cron`}>Cron expression (5 fields)</Label>
          <Input id={`${prefix}-cron`} value={f.cron} onChange={(e) => set("cron", e.target.value)} placeholder="0 18 * * 5" required />
        </div>
      )}
      <div className="flex items-center gap-2 sm:pt-6">
        <input
          id={`${prefix}-writable`}
          type="checkbox"
          className="h-4 w-4"
          checked={f.clientWritable}
          onChange={(e) => set("clientWritable", e.target.checked)}
        />
        <label htmlFor={`${prefix}-writable`} className="text-sm text-zinc-700">
          Game clients may submit (off: server keys only)
        </label>
      </div>
      <div className="flex gap-2 sm:col-span-2 lg:col-span-3">
        <Button type="submit" disabled={pending}>
          {mode === "create" ? "Create leaderboard" : "Save changes"}
        </Button>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}
