import { Suspense } from "react";
import { Purchases } from "@/components/dashboard/purchases";

export default async function PurchasesPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  // The filters live in the URL (useSearchParams): a client boundary below Suspense.
  return (
    <Suspense>
      <Purchases projectId={projectId} />
    </Suspense>
  );
}
