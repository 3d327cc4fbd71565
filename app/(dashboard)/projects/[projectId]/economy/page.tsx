import { Economy } from "@/components/dashboard/economy";

export default async function EconomyPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <Economy projectId={projectId} />;
}
