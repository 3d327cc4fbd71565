import { ApiKeys } from "@/components/dashboard/keys";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function KeysPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="keys" />
      <ApiKeys projectId={projectId} />
    </>
  );
}
