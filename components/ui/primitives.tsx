import type { ButtonHTMLAttributes, HTMLAttributes, InputHTMLAttributes, ReactNode, Ref, SelectHTMLAttributes } from "react";

import { cx } from "./cx";

/**
 * Small local primitives in the shadcn/ui style (Tailwind classes, native elements underneath).
 * Radix-based ones live beside them: dialog.tsx, alert-dialog.tsx (ConfirmDialog),
 * dropdown-menu.tsx, select.tsx (SelectMenu); data-table.tsx (TanStack Table), field.tsx, toaster.tsx.
 */

export function Button({
  variant = "primary",
  className,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "primary" | "secondary" | "danger" }) {
  return (
    <button
      type="button"
      {...props}
      className={cx(
        "inline-flex items-center justify-center rounded-md px-3 py-2 text-sm font-medium shadow-sm transition focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-400 focus-visible:ring-offset-1 disabled:cursor-not-allowed disabled:opacity-50",
        variant === "primary" && "bg-zinc-900 text-white hover:bg-zinc-700",
        variant === "secondary" && "border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-100",
        variant === "danger" && "bg-red-600 text-white hover:bg-red-700",
        className,
      )}
    />
  );
}

/** `ref` (React 19 passes it as a prop): a page that focuses its search box with a shortcut. */
export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement> & { ref?: Ref<HTMLInputElement> }) {
  return (
    <input
      {...props}
      className={cx(
        "w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-zinc-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-300 aria-[invalid=true]:border-red-500",
        className,
      )}
    />
  );
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select {...props} className={cx("rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm", className)} />;
}

export function Card({ title, children, actions }: { title?: ReactNode; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm">
      {(title || actions) && (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          {title && <h2 className="text-base font-semibold">{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

export function Label({ children, htmlFor }: { children: ReactNode; htmlFor: string }) {
  return (
    <label htmlFor={htmlFor} className="mb-1 block text-sm font-medium text-zinc-700">
      {children}
    </label>
  );
}

/** Loading, empty and error states, the same everywhere. */
export function State({ kind, children }: { kind: "loading" | "empty" | "error"; children: ReactNode }) {
  return (
    <p
      role={kind === "error" ? "alert" : "status"}
      className={cx("rounded-md px-3 py-6 text-center text-sm", kind === "error" ? "bg-red-50 text-red-700" : "text-zinc-500")}
    >
      {children}
    </p>
  );
}

export function Table({ head, children }: { head: ReactNode[]; children: ReactNode }) {
  return (
    <div className="relative overflow-x-auto">
      <table className="w-full min-w-[560px] text-left text-sm">
        <thead className="border-b border-zinc-200 text-xs uppercase text-zinc-500">
          <tr>
            {head.map((h, i) => (
              <th key={String(i)} className="px-2 py-2 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">{children}</tbody>
      </table>
    </div>
  );
}

export function Badge({ children, tone = "neutral" }: { children: ReactNode; tone?: "neutral" | "red" | "green" }) {
  return (
    <span
      className={cx(
        "inline-block rounded-full px-2 py-0.5 text-xs font-medium",
        tone === "neutral" && "bg-zinc-100 text-zinc-700",
        tone === "red" && "bg-red-100 text-red-700",
        tone === "green" && "bg-green-100 text-green-700",
      )}
    >
      {children}
    </span>
  );
}

/**
 * A region that scrolls on its own (a long export, a long diff): named, and focusable so that a
 * keyboard can scroll it (axe's scrollable-region-focusable). `scrolls: false` leaves it a plain
 * named region (expanded, nothing to scroll).
 */
export function ScrollRegion({
  label,
  className,
  scrolls = true,
  children,
  ...props
}: { label: string; className?: string; scrolls?: boolean; children: ReactNode } & HTMLAttributes<HTMLElement>) {
  return (
    <section
      {...props}
      aria-label={label}
      // Focusable while it scrolls: a keyboard can then scroll it.
      tabIndex={scrolls ? 0 : undefined}
      className={cx("rounded focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-400", scrolls && "overflow-auto", className)}
    >
      {children}
    </section>
  );
}
