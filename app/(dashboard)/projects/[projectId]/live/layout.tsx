import type { ReactNode } from "react";
import { LiveNav } from "@/components/dashboard/live-nav";

export default async function LiveLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <div>
      <LiveNav projectId={projectId} />
      {children}
    </div>
  );
}
