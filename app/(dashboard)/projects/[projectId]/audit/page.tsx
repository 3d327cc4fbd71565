import { Suspense } from "react";
import { AuditLog } from "@/components/dashboard/audit";

export default async function AuditPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  // The filters live in the URL (useSearchParams): a client boundary below Suspense.
  return (
    <Suspense>
      <AuditLog projectId={projectId} />
    </Suspense>
  );
}
