import type { ReactNode } from "react";
import { LiveNav } from "@/components/dashboard/live-nav";

export default async function LiveLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <div>
      <h1 className="mb-1 text-2xl font-semibold">Live ops</h1>
      <p className="mb-3 text-sm text-zinc-600">Change the game for some players, at some times, and measure it.</p>
      <LiveNav projectId={projectId} />
      {children}
    </div>
  );
}
