import { ProjectNav } from "@/components/dashboard/project-nav";
import { IdentityProviders } from "@/components/dashboard/providers";

export default async function ProvidersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="providers" />
      <IdentityProviders projectId={projectId} />
    </>
  );
}
