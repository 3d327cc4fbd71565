"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  ["Config", ""],
  ["Audiences", "/audiences"],
  ["Experiments", "/experiments"],
  ["Calendar", "/calendar"],
] as const;

/** Live ops' own pages: remote config, audiences, experiments and the calendar of scheduled changes. */
export function LiveNav({ projectId }: { projectId: string }) {
  const pathname = usePathname();
  const base = `/projects/${projectId}/live`;
  const current = (path: string) => (path === "" ? pathname === base : pathname.startsWith(`${base}${path}`));
  return (
    <nav aria-label="Live ops" className="mb-4 flex flex-wrap gap-1 text-sm">
      {LINKS.map(([label, path]) => (
        <Link
          key={label}
          href={`${base}${path}`}
          aria-current={current(path) ? "page" : undefined}
          className={`rounded-md px-3 py-1.5 ${current(path) ? "bg-zinc-900 text-white" : "text-zinc-700 hover:bg-zinc-100"}`}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
