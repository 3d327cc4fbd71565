import { ProjectConfig } from "@/components/dashboard/config";

export default async function ConfigPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <ProjectConfig projectId={projectId} />;
}
