import { EmailLog } from "@/components/dashboard/email";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function EmailPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="email" />
      <EmailLog projectId={projectId} />
    </>
  );
}
