import { ProjectOverview } from "@/components/dashboard/overview";
import { signedInOperator } from "@/server/identity/next-auth";

export default async function ProjectPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const operator = await signedInOperator();
  return <ProjectOverview projectId={projectId} isInstanceAdmin={operator?.isInstanceAdmin ?? false} />;
}
