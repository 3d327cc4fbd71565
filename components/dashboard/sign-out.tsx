"use client";

import { LogOut } from "lucide-react";
import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/primitives";

export function SignOutButton() {
  return (
    <Button variant="secondary" onClick={() => signOut({ callbackUrl: "/login" })}>
      <LogOut className="mr-1 size-4" aria-hidden />
      Sign out
    </Button>
  );
}
