import { Leaderboards } from "@/components/dashboard/leaderboards";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function LeaderboardsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="leaderboards" />
      <Leaderboards projectId={projectId} />
    </>
  );
}
