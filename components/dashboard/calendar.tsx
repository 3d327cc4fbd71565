"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Field } from "@/components/ui/field";
import { Badge, Button, Card, Input, Select, State } from "@/components/ui/primitives";
import type { ScheduledChangeDto } from "@/server/services/schedules/schemas";
import { messageOf } from "./errors";
import { when } from "./format";
import { useProject } from "./project-context";

/**
 * The live-ops calendar: scheduled changes (sales, timed board settings) that are running and
 * upcoming, grouped by day (UTC), each time in UTC and in the operator's time zone; what has
 * ended below. Admins schedule and cancel; viewers read.
 */
const zone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
const utc = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const local = (iso: string) => when(iso);
const dayOf = (iso: string) => iso.slice(0, 10);

function When({ label, iso }: { label: string; iso: string }) {
  return (
    <div className="text-sm">
      <span className="font-medium">{label}</span> <time dateTime={iso}>{utc(iso)}</time>
      <span className="text-zinc-600"> · {local(iso)}</span>
    </div>
  );
}

const STATUS_TONE: Record<ScheduledChangeDto["status"], "neutral" | "red" | "green"> = {
  scheduled: "neutral",
  running: "green",
  done: "neutral",
  cancelled: "neutral",
  failed: "red",
};

function summary(c: ScheduledChangeDto): string {
  const fields = Object.entries(c.patch).map(([field, value]) => {
    if (field === "costs" && Array.isArray(value))
      return `price ${value.map((l: { amount?: number; currencyId?: string; quantity?: number; itemId?: string }) => `${l.amount ?? l.quantity} ${l.currencyId ?? l.itemId}`).join(" + ")}`;
    return `${field} ${JSON.stringify(value)}`;
  });
  return `${c.kind.replace(/s$/, "")} ${c.target}: ${fields.join(", ")}`;
}

function EventRow({ change, canEdit, projectId }: { change: ScheduledChangeDto; canEdit: boolean; projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const cancel = useMutation(trpc.schedules.cancel.mutationOptions());
  const open = change.status === "scheduled" || change.status === "running";
  return (
    <li className="space-y-1 rounded border border-zinc-200 p-3" aria-label={change.name}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex items-center gap-2">
          <span className="font-medium">{change.name}</span>
          <Badge tone={STATUS_TONE[change.status]}>{change.status}</Badge>
        </div>
        {canEdit && open && (
          <ConfirmDialog
            trigger={<Button variant="secondary">Cancel</Button>}
            title={`Cancel "${change.name}"?`}
            description={
              change.status === "running" ? "It is running: what it changed is put back now." : "It has not started: it will never apply."
            }
            confirmLabel="Cancel the change"
            onConfirm={async () => {
              try {
                await cancel.mutateAsync({ projectId, id: change.id });
                toast.success(`Cancelled "${change.name}".`);
                await queryClient.invalidateQueries({ queryKey: trpc.schedules.list.queryKey() });
              } catch (error) {
                toast.error(messageOf(error));
                throw error;
              }
            }}
          />
        )}
      </div>
      <p className="text-sm text-zinc-700">{summary(change)}</p>
      <When label="Starts" iso={change.startsAt} />
      {change.endsAt && <When label="Ends" iso={change.endsAt} />}
      {change.error && <p className="text-sm text-red-700">{change.error}</p>}
    </li>
  );
}

function Events({ list, canEdit, projectId }: { list: ScheduledChangeDto[]; canEdit: boolean; projectId: string }) {
  const running = list.filter((c) => c.status === "running");
  const upcoming = list.filter((c) => c.status === "scheduled");
  const days = [...new Set(upcoming.map((c) => dayOf(c.startsAt)))];
  const past = list.filter((c) => c.status !== "running" && c.status !== "scheduled").reverse();
  const items = (cs: ScheduledChangeDto[]) => (
    <ul className="space-y-2">
      {cs.map((c) => (
        <EventRow key={c.id} change={c} canEdit={canEdit} projectId={projectId} />
      ))}
    </ul>
  );
  return (
    <div className="space-y-6">
      <Card title="Running now">{running.length ? items(running) : <State kind="empty">Nothing is running.</State>}</Card>
      <Card title="Upcoming">
        {days.length === 0 && <State kind="empty">Nothing is scheduled.</State>}
        {days.map((day) => (
          <section key={day} className="mb-4 space-y-2" aria-label={`${day} (UTC)`}>
            <h3 className="text-sm font-semibold text-zinc-700">{day} (UTC)</h3>
            {items(upcoming.filter((c) => dayOf(c.startsAt) === day))}
          </section>
        ))}
      </Card>
      <Card title="Past">{past.length ? items(past) : <State kind="empty">Nothing has ended yet.</State>}</Card>
    </div>
  );
}

/** A datetime-local value (the operator's time zone) as an instant. */
const instant = (value: string) => (value ? new Date(value).toISOString() : "");

function WindowFields({
  start,
  end,
  setStart,
  setEnd,
}: {
  start: string;
  end: string;
  setStart: (v: string) => void;
  setEnd: (v: string) => void;
}) {
  const id = useId();
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <Field label={`Starts (your time, ${zone()})`} htmlFor={`${id}-start`} hint={start ? utc(instant(start)) : undefined}>
        <Input id={`${id}-start`} type="datetime-local" required value={start} onChange={(e) => setStart(e.target.value)} />
      </Field>
      <Field label={`Ends (your time, ${zone()}; optional)`} htmlFor={`${id}-end`} hint={end ? utc(instant(end)) : undefined}>
        <Input id={`${id}-end`} type="datetime-local" value={end} onChange={(e) => setEnd(e.target.value)} />
      </Field>
    </div>
  );
}

/** The window as the service takes it: an end left empty is no end. */
const windowOf = (start: string, end: string) => ({ startsAt: instant(start), endsAt: end ? instant(end) : null });

/** What a scheduling form changes: the id suffix of its select, the select's label and its prompt, a sample name. */
type TargetKind = { key: string; label: string; choose: string; placeholder: string };
const SALE: TargetKind = { key: "purchase", label: "Purchase", choose: "Choose a purchase", placeholder: "Weekend sale" };
const BOARD_CHANGE: TargetKind = {
  key: "board",
  label: "Leaderboard",
  choose: "Choose a leaderboard",
  placeholder: "Double points weekend",
};

/** What each scheduling form begins with: the change's name, and the purchase or board it changes. */
function NameAndTarget({
  of,
  id,
  name: [name, setName],
  target: [target, setTarget],
  options,
}: {
  of: TargetKind;
  id: string;
  name: [string, (v: string) => void];
  target: [string, (v: string) => void];
  options: ReadonlyArray<{ id: string; name: string }> | undefined;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <Field label="Name" htmlFor={`${id}-name`}>
        <Input
          id={`${id}-name`}
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={of.placeholder}
        />
      </Field>
      <Field label={of.label} htmlFor={`${id}-${of.key}`}>
        <Select id={`${id}-${of.key}`} required value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="">{of.choose}</option>
          {options?.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name} ({o.id})
            </option>
          ))}
        </Select>
      </Field>
    </div>
  );
}

/** What each scheduling form ends with: the service's refusal, then its submit button. */
function ScheduleButton({ error, disabled, children }: { error: string | null; disabled: boolean; children: string }) {
  return (
    <>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <Button type="submit" disabled={disabled}>
        {children}
      </Button>
    </>
  );
}

function useSchedule(projectId: string, onDone: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const schedule = useMutation(trpc.schedules.schedule.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const submit = async (input: Omit<Parameters<typeof schedule.mutateAsync>[0], "projectId">) => {
    setError(null);
    try {
      const created = await schedule.mutateAsync({ projectId, ...input });
      toast.success(`Scheduled "${created.name}".`);
      await queryClient.invalidateQueries({ queryKey: trpc.schedules.list.queryKey() });
      onDone();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return { submit, error, pending: schedule.isPending };
}

function SaleForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const purchases = useQuery(trpc.economy.purchases.queryOptions({ projectId }));
  const id = useId();
  const [target, setTarget] = useState("");
  const [name, setName] = useState("");
  const [amounts, setAmounts] = useState<Record<number, string>>({});
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const reset = () => {
    setName("");
    setAmounts({});
    setStart("");
    setEnd("");
  };
  const { submit, error, pending } = useSchedule(projectId, reset);
  const purchase = purchases.data?.find((p) => p.id === target);
  /** Another purchase has other cost lines: the sale prices typed for the last one go. */
  const choose = (next: string) => {
    setTarget(next);
    setAmounts({});
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!purchase) return;
    const costs = purchase.costs.map((line, i) => {
      const amount = amounts[i] === undefined || amounts[i] === "" ? undefined : Number(amounts[i]);
      if ("currencyId" in line) return { currencyId: line.currencyId, amount: amount ?? line.amount };
      return { itemId: line.itemId, quantity: amount ?? line.quantity };
    });
    void submit({ name, kind: "purchases", target, patch: { costs }, ...windowOf(start, end) });
  };
  if (purchases.isError) return <State kind="error">{messageOf(purchases.error)}</State>;
  return (
    <form className="space-y-3" onSubmit={onSubmit} aria-label="Schedule a sale">
      <NameAndTarget of={SALE} id={id} name={[name, setName]} target={[target, choose]} options={purchases.data} />
      {purchase && (
        <fieldset className="grid gap-3 sm:grid-cols-2">
          <legend className="mb-1 text-sm font-medium text-zinc-700">Sale price</legend>
          {purchase.costs.map((line, i) => {
            const what = "currencyId" in line ? line.currencyId : line.itemId;
            const now = "currencyId" in line ? line.amount : line.quantity;
            return (
              <Field key={what} label={`${what} (now ${now})`} htmlFor={`${id}-cost-${i}`}>
                <Input
                  id={`${id}-cost-${i}`}
                  type="number"
                  min={1}
                  required
                  value={amounts[i] ?? ""}
                  onChange={(e) => setAmounts({ ...amounts, [i]: e.target.value })}
                />
              </Field>
            );
          })}
        </fieldset>
      )}
      <WindowFields start={start} end={end} setStart={setStart} setEnd={setEnd} />
      <ScheduleButton error={error} disabled={pending || !purchase}>
        Schedule the sale
      </ScheduleButton>
    </form>
  );
}

function BoardChangeForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const boards = useQuery(trpc.leaderboards.list.queryOptions({ projectId }));
  const id = useId();
  const [target, setTarget] = useState("");
  const [name, setName] = useState("");
  const [patch, setPatch] = useState('{ "clientWritable": false }');
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const { submit, error, pending } = useSchedule(projectId, () => setName(""));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(patch) as Record<string, unknown>;
    } catch {
      setJsonError("Write the fields as a JSON object.");
      return;
    }
    setJsonError(null);
    void submit({ name, kind: "leaderboards", target, patch: fields, ...windowOf(start, end) });
  };
  return (
    <form className="space-y-3" onSubmit={onSubmit} aria-label="Schedule a board change">
      <NameAndTarget of={BOARD_CHANGE} id={id} name={[name, setName]} target={[target, setTarget]} options={boards.data} />
      <Field
        label="Settings to change (JSON)"
        htmlFor={`${id}-patch`}
        hint="Any of name, minScore, maxScore, resetSchedule, clientWritable, scoreEvents, rewards — as in the config-as-code document."
        error={jsonError ? { message: jsonError } : undefined}
      >
        <textarea
          id={`${id}-patch`}
          className="w-full rounded border border-zinc-300 p-2 font-mono text-sm"
          rows={3}
          value={patch}
          onChange={(e) => setPatch(e.target.value)}
        />
      </Field>
      <WindowFields start={start} end={end} setStart={setStart} setEnd={setEnd} />
      <ScheduleButton error={error} disabled={pending}>
        Schedule the change
      </ScheduleButton>
    </form>
  );
}

export function Calendar({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const { canEdit } = useProject();
  const list = useQuery(trpc.schedules.list.queryOptions({ projectId }, { refetchInterval: 15_000 }));
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Calendar</h1>
        <p className="text-sm text-zinc-600">
          Scheduled changes start and end by themselves, within a few seconds of their time. Times in UTC and in your time zone ({zone()}).
        </p>
      </div>
      {list.isPending && <State kind="loading">Loading the calendar…</State>}
      {list.isError && <State kind="error">{messageOf(list.error)}</State>}
      {list.data && <Events list={list.data} canEdit={canEdit} projectId={projectId} />}
      {canEdit && (
        <>
          <Card title="Schedule a sale">
            <SaleForm projectId={projectId} />
          </Card>
          <Card title="Schedule a change to a leaderboard">
            <BoardChangeForm projectId={projectId} />
          </Card>
        </>
      )}
    </div>
  );
}
