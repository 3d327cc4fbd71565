import { Members } from "@/components/dashboard/members";

export default async function MembersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <Members projectId={projectId} />;
}
