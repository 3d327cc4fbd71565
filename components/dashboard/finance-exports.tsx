"use client";

import { Download } from "lucide-react";
import { useId, useState } from "react";
import { Field } from "@/components/ui/field";
import { Card, Input } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { FINANCE_MAX_DAYS } from "@/server/services/exports/schemas";
import { useProject } from "./project-context";

/**
 * Finance's downloads: every ledger row or every store transaction of a range of UTC days, as
 * CSV with one column per currency and item. A plain link, so the browser streams the file to
 * disk as the server writes it. Admins and owners only (the rows name players).
 */
type FinanceKind = "finance-ledger" | "store-transactions";
const KINDS: { value: FinanceKind; label: string }[] = [
  { value: "finance-ledger", label: "Ledger (every change, per currency)" },
  { value: "store-transactions", label: "Store transactions" },
];
const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const firstOfMonth = () => `${today().slice(0, 8)}01`;

/** Why the range cannot be exported, or null. */
function rangeProblem(from: string, to: string): string | null {
  if (!from || !to) return "Pick both dates.";
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (!Number.isFinite(days)) return "Pick both dates.";
  if (days < 1) return "The end date is before the start date.";
  if (days > FINANCE_MAX_DAYS) return `A range is at most ${FINANCE_MAX_DAYS} days.`;
  return null;
}

export function FinanceExports({ projectId }: { projectId: string }) {
  const { role } = useProject();
  const id = useId();
  const [kind, setKind] = useState<FinanceKind>("finance-ledger");
  const [from, setFrom] = useState(firstOfMonth);
  const [to, setTo] = useState(today);
  const [bom, setBom] = useState(false);
  if (role === "VIEWER") return null;
  const problem = rangeProblem(from, to);
  const query = new URLSearchParams({ format: "csv", from, to, ...(bom ? { bom: "1" } : {}) });
  const href = `/api/dashboard/projects/${projectId}/exports/${kind}?${query.toString()}`;
  const link =
    "inline-flex items-center rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm font-medium text-zinc-900 shadow-sm hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-400";
  return (
    <Card title="Finance exports">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[minmax(0,2fr)_repeat(2,minmax(0,1fr))_auto] lg:items-end">
        <Field label="What" htmlFor={`${id}-kind`}>
          <SelectMenu id={`${id}-kind`} aria-label="What to export" value={kind} onValueChange={setKind} options={KINDS} />
        </Field>
        <Field label="From (UTC)" htmlFor={`${id}-from`}>
          <Input id={`${id}-from`} type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} />
        </Field>
        <Field label="To (UTC, included)" htmlFor={`${id}-to`}>
          <Input id={`${id}-to`} type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
        </Field>
        <div className="flex items-center gap-2 lg:pb-2">
          <input
            id={`${id}-bom`}
            type="checkbox"
            className="size-4 accent-zinc-900"
            checked={bom}
            onChange={(e) => setBom(e.target.checked)}
          />
          <label htmlFor={`${id}-bom`} className="text-sm text-zinc-700">
            For Excel (byte-order mark)
          </label>
        </div>
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        {problem ? (
          <p role="alert" className="text-sm text-red-700" data-testid="finance-export-problem">
            {problem}
          </p>
        ) : (
          <a className={link} href={href} download data-testid="finance-export-download">
            <Download className="mr-1 size-3.5" aria-hidden />
            Download CSV
          </a>
        )}
        <p className="text-sm text-zinc-600">
          One column per currency and item; at most {FINANCE_MAX_DAYS} days. Every download is audited.
        </p>
      </div>
    </Card>
  );
}
