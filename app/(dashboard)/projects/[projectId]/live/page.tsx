import { LiveConfig } from "@/components/dashboard/live-config";

export default async function RemoteConfigPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <LiveConfig projectId={projectId} />;
}
