import { ProjectOverview } from "@/components/dashboard/overview";
import { ProjectNav } from "@/components/dashboard/project-nav";
import { signedInOperator } from "@/server/auth/next-auth";

export default async function ProjectPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const operator = await signedInOperator();
  return (
    <>
      <ProjectNav projectId={projectId} current="overview" />
      <ProjectOverview projectId={projectId} isInstanceAdmin={operator?.isInstanceAdmin ?? false} />
    </>
  );
}
