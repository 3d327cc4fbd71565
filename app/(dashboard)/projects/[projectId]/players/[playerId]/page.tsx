import { PlayerDetail } from "@/components/dashboard/player-detail";

export default async function PlayerPage({ params }: { params: Promise<{ projectId: string; playerId: string }> }) {
  const { projectId, playerId } = await params;
  return <PlayerDetail projectId={projectId} playerId={playerId} />;
}
