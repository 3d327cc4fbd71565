import { type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, useId } from "react";
import { cx } from "@/components/ui/cx";

/** The game's own look (a studio's game, not the dashboard): dark arcade panels, amber actions. */

export function GameButton({
  variant = "primary",
  className,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "primary" | "secondary" | "ghost" }) {
  return (
    <button
      type="button"
      {...props}
      className={cx(
        "inline-flex items-center justify-center gap-2 rounded-lg px-4 py-2 text-sm font-semibold transition focus:outline-none focus-visible:ring-2 focus-visible:ring-amber-300 focus-visible:ring-offset-2 focus-visible:ring-offset-indigo-950 disabled:cursor-not-allowed disabled:opacity-60",
        variant === "primary" && "bg-amber-400 text-zinc-950 shadow hover:bg-amber-300",
        variant === "secondary" && "border border-white/25 bg-white/5 text-white hover:bg-white/15",
        variant === "ghost" && "px-2 text-indigo-200 underline-offset-2 hover:text-white hover:underline",
        className,
      )}
    />
  );
}

export function Panel({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="rounded-xl border border-white/10 bg-white/[0.06] p-4 shadow-lg">
      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 id={id} className="text-base font-bold tracking-wide text-white">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function TextField({ label, hint, ...props }: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-xs font-medium uppercase tracking-wide text-indigo-200">
        {label}
      </label>
      <input
        id={id}
        {...props}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className="w-full rounded-lg border border-white/20 bg-indigo-950/70 px-3 py-2 text-sm text-white placeholder:text-indigo-300/60 focus:border-amber-300 focus:outline-none focus-visible:ring-2 focus-visible:ring-amber-300/60"
      />
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-indigo-200">
          {hint}
        </p>
      )}
    </div>
  );
}

/** A status line: errors are alerts (read out at once), the rest polite statuses. */
export function Notice({ tone, children, testId }: { tone: "info" | "success" | "error"; children: ReactNode; testId?: string }) {
  return (
    <p
      role={tone === "error" ? "alert" : "status"}
      data-testid={testId}
      className={cx(
        "mt-2 rounded-lg px-3 py-2 text-sm",
        tone === "error" && "bg-red-500/15 text-red-200",
        tone === "success" && "bg-emerald-500/15 text-emerald-200",
        tone === "info" && "text-indigo-200",
      )}
    >
      {children}
    </p>
  );
}

/** What a panel says after an action: null while there is nothing to say. */
export type Status = { tone: "info" | "success" | "error"; text: string } | null;
