import { LeaderboardDetail } from "@/components/dashboard/leaderboard-detail";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function LeaderboardPage({ params }: { params: Promise<{ projectId: string; leaderboardId: string }> }) {
  const { projectId, leaderboardId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="leaderboards" />
      <LeaderboardDetail projectId={projectId} leaderboardId={leaderboardId} />
    </>
  );
}
