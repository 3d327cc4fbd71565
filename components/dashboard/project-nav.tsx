import Link from "next/link";

export function ProjectNav({
  projectId,
  current,
}: {
  projectId: string;
  current: "overview" | "keys" | "players" | "members" | "providers" | "config" | "audit";
}) {
  const tabs = [
    ["overview", "Overview", `/projects/${projectId}`],
    ["keys", "API keys", `/projects/${projectId}/keys`],
    ["players", "Players", `/projects/${projectId}/players`],
    ["members", "Members", `/projects/${projectId}/members`],
    ["providers", "Identity providers", `/projects/${projectId}/providers`],
    ["config", "Configuration", `/projects/${projectId}/config`],
    ["audit", "Audit log", `/projects/${projectId}/audit`],
  ] as const;
  return (
    <nav className="mb-6 flex flex-wrap gap-1 border-b border-zinc-200">
      <Link href="/projects" className="px-3 py-2 text-sm text-zinc-500 hover:text-zinc-900">
        ← Projects
      </Link>
      {tabs.map(([key, label, href]) => (
        <Link
          key={key}
          href={href}
          aria-current={current === key ? "page" : undefined}
          className={`px-3 py-2 text-sm ${current === key ? "border-b-2 border-zinc-900 font-medium" : "text-zinc-600 hover:text-zinc-900"}`}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
