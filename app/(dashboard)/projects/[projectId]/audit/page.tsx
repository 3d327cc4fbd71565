import { AuditLog } from "@/components/dashboard/audit";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function AuditPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="audit" />
      <AuditLog projectId={projectId} />
    </>
  );
}
