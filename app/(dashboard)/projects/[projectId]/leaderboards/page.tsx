import { Leaderboards } from "@/components/dashboard/leaderboards";

export default async function LeaderboardsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <Leaderboards projectId={projectId} />;
}
