import { ProjectConfig } from "@/components/dashboard/config";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function ConfigPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="config" />
      <ProjectConfig projectId={projectId} />
    </>
  );
}
