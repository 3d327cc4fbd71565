import { Members } from "@/components/dashboard/members";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function MembersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="members" />
      <Members projectId={projectId} />
    </>
  );
}
