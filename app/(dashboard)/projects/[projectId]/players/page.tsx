import { PlayerSearch } from "@/components/dashboard/players";

export default async function PlayersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <PlayerSearch projectId={projectId} />;
}
