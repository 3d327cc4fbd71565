import type { ReactNode } from "react";

/**
 * A table that fits a phone: no minimum width, and columns marked `wide` are hidden below the
 * `sm` breakpoint (their cells use the same WIDE class; rows repeat what matters in a visible cell).
 */
export const WIDE = "hidden sm:table-cell";

export function GameTable({ head, children }: { head: Array<{ label: string; wide?: boolean }>; children: ReactNode }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="border-b border-zinc-200 text-xs uppercase text-zinc-500">
          <tr>
            {head.map((h, i) => (
              <th key={String(i)} className={`px-2 py-2 font-medium ${h.wide ? WIDE : ""}`}>
                {h.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">{children}</tbody>
      </table>
    </div>
  );
}
