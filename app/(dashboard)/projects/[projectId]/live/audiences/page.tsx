import { LiveAudiences } from "@/components/dashboard/live-audiences";

export default async function AudiencesPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <LiveAudiences projectId={projectId} />;
}
