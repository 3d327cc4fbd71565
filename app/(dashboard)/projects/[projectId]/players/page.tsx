import { PlayerSearch } from "@/components/dashboard/players";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function PlayersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="players" />
      <PlayerSearch projectId={projectId} />
    </>
  );
}
