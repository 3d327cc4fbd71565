import { ApiKeys } from "@/components/dashboard/keys";

export default async function KeysPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <ApiKeys projectId={projectId} />;
}
