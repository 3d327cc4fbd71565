"use client";

import {
  ArrowLeft,
  Coins,
  CreditCard,
  FileCog,
  Fingerprint,
  KeyRound,
  LayoutDashboard,
  Mail,
  Radio,
  ScrollText,
  Trophy,
  Users,
  UsersRound,
  Webhook,
} from "lucide-react";
import Link from "next/link";
import { useSelectedLayoutSegment } from "next/navigation";
import { useProject } from "./project-context";

const TABS = [
  [null, "Overview", "", LayoutDashboard],
  ["keys", "API keys", "/keys", KeyRound],
  ["players", "Players", "/players", UsersRound],
  ["leaderboards", "Leaderboards", "/leaderboards", Trophy],
  ["economy", "Economy", "/economy", Coins],
  ["purchases", "Purchases", "/purchases", CreditCard],
  ["live", "Live ops", "/live", Radio],
  ["members", "Members", "/members", Users],
  ["providers", "Identity", "/providers", Fingerprint],
  ["config", "Configuration", "/config", FileCog],
  ["email", "E-mail", "/email", Mail],
  ["webhooks", "Webhooks", "/webhooks", Webhook],
  ["audit", "Audit log", "/audit", ScrollText],
] as const;

/**
 * Pages under another tab (one tab each keeps the row on one line): the store's settings and
 * products are reached from Purchases, the moderation queue from Players.
 */
const UNDER: Record<string, string> = { store: "purchases", moderation: "players" };

/** The project's name and its tabs; the current tab follows the URL (a player's page is under Players). */
export function ProjectNav() {
  const { projectId, name, role } = useProject();
  const selected = useSelectedLayoutSegment();
  const segment = selected ? (UNDER[selected] ?? selected) : selected;
  return (
    <div className="mb-6">
      <div className="mb-2 flex flex-wrap items-center gap-x-3 gap-y-1">
        <Link href="/projects" className="inline-flex items-center gap-1 text-sm text-zinc-500 hover:text-zinc-900">
          <ArrowLeft className="size-4" aria-hidden />
          Projects
        </Link>
        <span className="truncate font-semibold" data-testid="frame-project-name">
          {name}
        </span>
        <span className="rounded bg-zinc-100 px-2 py-0.5 text-xs text-zinc-700">{role.toLowerCase()}</span>
      </div>
      <nav aria-label="Project" className="border-b border-zinc-200">
        {/* Fits one line at 1280 px in DejaVu Sans, the widest common Linux UI font (13 tabs at 13 px: about 13 px to spare; at 14 px the last tab wrapped); wraps on a phone rather than scrolling: every page stays in sight. */}
        <div className="flex flex-wrap">
          {TABS.map(([key, label, path, Icon]) => (
            <Link
              key={label}
              href={`/projects/${projectId}${path}`}
              aria-current={segment === key ? "page" : undefined}
              className={`inline-flex items-center gap-0.5 px-1 py-2 text-[13px] ${segment === key ? "-mb-px border-b-2 border-zinc-900 font-medium" : "text-zinc-600 hover:text-zinc-900"}`}
            >
              <Icon className="size-3.5" aria-hidden />
              {label}
            </Link>
          ))}
        </div>
      </nav>
    </div>
  );
}
