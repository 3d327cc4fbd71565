import { Suspense } from "react";
import { Moderation } from "@/components/dashboard/moderation";

export default async function ModerationPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  // The filters and the open player live in the URL (useSearchParams): a client boundary below Suspense.
  return (
    <Suspense>
      <Moderation projectId={projectId} />
    </Suspense>
  );
}
