import { LiveExperiments } from "@/components/dashboard/live-experiments";

export default async function ExperimentsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <LiveExperiments projectId={projectId} />;
}
