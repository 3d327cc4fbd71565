import { StorePage } from "@/components/dashboard/store-page";

export default async function Store({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <StorePage projectId={projectId} />;
}
