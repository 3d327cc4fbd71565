import { Gamepad2 } from "lucide-react";
import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/dashboard/sign-out";
import { TrpcProvider } from "@/components/providers/trpc";
import { Toaster } from "@/components/ui/toaster";
import { signedInOperator } from "@/server/identity/next-auth";

export const dynamic = "force-dynamic";

/**
 * Server-rendered shell. `proxy.ts` already sends visitors without a session cookie to sign-in;
 * this check also catches a cookie whose operator no longer exists. Every procedure checks again.
 */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const operator = await signedInOperator();
  if (!operator) redirect("/login");
  return (
    <TrpcProvider>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:shadow"
      >
        Skip to content
      </a>
      <header className="border-b border-zinc-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-2 px-4 py-3">
          <Link href="/projects" className="inline-flex items-center gap-2 font-semibold">
            <Gamepad2 className="size-5" aria-hidden />
            Game backend
          </Link>
          <div className="flex min-w-0 flex-wrap items-center gap-3 text-sm text-zinc-600">
            <Link href="/tokens" className="hover:text-zinc-900">
              Access tokens
            </Link>
            <Link href="/account" className="hover:text-zinc-900">
              Account
            </Link>
            {operator.isInstanceAdmin && (
              <Link href="/instance" className="hover:text-zinc-900">
                Instance
              </Link>
            )}
            {operator.isInstanceAdmin && (
              <Link href="/operators" className="hover:text-zinc-900">
                Operators
              </Link>
            )}
            {/* On a phone the links need the room; the Account page names the operator's sessions. */}
            <span data-testid="operator-email" className="hidden truncate sm:inline">
              {operator.email}
            </span>
            {operator.isInstanceAdmin && <span className="rounded bg-zinc-100 px-2 py-0.5 text-xs">instance admin</span>}
            <SignOutButton />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-6 outline-none">
        {children}
      </main>
      <Toaster />
    </TrpcProvider>
  );
}
