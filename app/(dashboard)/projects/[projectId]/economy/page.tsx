import { Economy } from "@/components/dashboard/economy";
import { ProjectNav } from "@/components/dashboard/project-nav";

export default async function EconomyPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return (
    <>
      <ProjectNav projectId={projectId} current="economy" />
      <Economy projectId={projectId} />
    </>
  );
}
