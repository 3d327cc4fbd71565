import { AuditLog } from "@/components/dashboard/audit";

export default async function AuditPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <AuditLog projectId={projectId} />;
}
