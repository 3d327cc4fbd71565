import { LiveResults } from "@/components/dashboard/live-results";

export default async function ExperimentResultsPage({ params }: { params: Promise<{ projectId: string; experimentId: string }> }) {
  const { projectId, experimentId } = await params;
  return <LiveResults projectId={projectId} experimentId={decodeURIComponent(experimentId)} />;
}
