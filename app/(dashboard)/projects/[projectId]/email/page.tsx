import { EmailLog } from "@/components/dashboard/email";

export default async function EmailPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <EmailLog projectId={projectId} />;
}
