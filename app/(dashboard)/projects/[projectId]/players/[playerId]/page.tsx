import { PlayerDetail } from "@/components/dashboard/player-detail";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function PlayerPage({ params }: { params: Promise<{ projectId: string; playerId: string }> }) {
  const { projectId, playerId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="players" />
      <PlayerDetail projectId={projectId} playerId={playerId} />
    </>
  );
}
