import { Webhooks } from "@/components/dashboard/webhooks/endpoints";
import { webhookPolicy } from "@/server/services/webhooks/delivery";

export default async function WebhooksPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <Webhooks projectId={projectId} policy={webhookPolicy()} />;
}
