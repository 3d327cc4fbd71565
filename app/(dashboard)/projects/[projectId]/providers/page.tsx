import { IdentityProviders } from "@/components/dashboard/providers";

export default async function ProvidersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <IdentityProviders projectId={projectId} />;
}
