import { redirect } from "next/navigation";
import { Suspense } from "react";
import { LoginForm } from "@/components/dashboard/login-form";
import { signedInOperator } from "@/server/identity/next-auth";

export const dynamic = "force-dynamic";

export default async function LoginPage() {
  if (await signedInOperator()) redirect("/projects");
  return (
    <main className="mx-auto mt-24 max-w-sm px-4">
      <h1 className="mb-1 text-2xl font-semibold">Game backend</h1>
      <p className="mb-6 text-sm text-zinc-500">Sign in to the operator dashboard.</p>
      <div className="rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">
        <Suspense>
          <LoginForm />
        </Suspense>
      </div>
    </main>
  );
}
