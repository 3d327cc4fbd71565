import {
  ArrowLeft,
  Coins,
  FileCog,
  Fingerprint,
  KeyRound,
  LayoutDashboard,
  Mail,
  ScrollText,
  Trophy,
  Users,
  UsersRound,
} from "lucide-react";
import Link from "next/link";

export function ProjectNav({
  projectId,
  current,
}: {
  projectId: string;
  current: "overview" | "keys" | "players" | "leaderboards" | "economy" | "members" | "providers" | "config" | "email" | "audit";
}) {
  const tabs = [
    ["overview", "Overview", `/projects/${projectId}`, LayoutDashboard],
    ["keys", "API keys", `/projects/${projectId}/keys`, KeyRound],
    ["players", "Players", `/projects/${projectId}/players`, UsersRound],
    ["leaderboards", "Leaderboards", `/projects/${projectId}/leaderboards`, Trophy],
    ["economy", "Economy", `/projects/${projectId}/economy`, Coins],
    ["members", "Members", `/projects/${projectId}/members`, Users],
    ["providers", "Identity providers", `/projects/${projectId}/providers`, Fingerprint],
    ["config", "Configuration", `/projects/${projectId}/config`, FileCog],
    ["email", "E-mail", `/projects/${projectId}/email`, Mail],
    ["audit", "Audit log", `/projects/${projectId}/audit`, ScrollText],
  ] as const;
  return (
    <nav aria-label="Project" className="mb-6 border-b border-zinc-200">
      {/* Wraps on a phone rather than scrolling: every page stays in sight. */}
      <div className="flex flex-wrap gap-x-1">
        <Link href="/projects" className="inline-flex items-center gap-1 px-3 py-2 text-sm text-zinc-500 hover:text-zinc-900">
          <ArrowLeft className="size-4" aria-hidden />
          Projects
        </Link>
        {tabs.map(([key, label, href, Icon]) => (
          <Link
            key={key}
            href={href}
            aria-current={current === key ? "page" : undefined}
            className={`inline-flex items-center gap-1.5 px-3 py-2 text-sm ${current === key ? "-mb-px border-b-2 border-zinc-900 font-medium" : "text-zinc-600 hover:text-zinc-900"}`}
          >
            <Icon className="size-4" aria-hidden />
            {label}
          </Link>
        ))}
      </div>
    </nav>
  );
}
