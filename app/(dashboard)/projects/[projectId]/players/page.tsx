import { Suspense } from "react";
import { PlayerSearch } from "@/components/dashboard/players";

export default async function PlayersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  // The search and filters live in the URL (useSearchParams): a client boundary below Suspense.
  return (
    <Suspense>
      <PlayerSearch projectId={projectId} />
    </Suspense>
  );
}
