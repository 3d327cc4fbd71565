import { LeaderboardDetail } from "@/components/dashboard/leaderboard-detail";

export default async function LeaderboardPage({ params }: { params: Promise<{ projectId: string; leaderboardId: string }> }) {
  const { projectId, leaderboardId } = await params;
  return <LeaderboardDetail projectId={projectId} leaderboardId={leaderboardId} />;
}
