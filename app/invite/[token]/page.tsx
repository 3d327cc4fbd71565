import { AcceptInvite } from "@/components/dashboard/accept-invite";
import { TrpcProvider } from "@/components/providers/trpc";

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main className="mx-auto mt-24 max-w-sm px-4">
      <h1 className="mb-6 text-2xl font-semibold">Join a project</h1>
      <div className="rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">
        <TrpcProvider>
          <AcceptInvite token={token} />
        </TrpcProvider>
      </div>
    </main>
  );
}
