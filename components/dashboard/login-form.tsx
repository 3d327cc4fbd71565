"use client";

import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, useState } from "react";
import { Button, Input, Label } from "@/components/ui/primitives";
import { safeRedirectPath } from "@/server/identity/safe-redirect";

export function LoginForm() {
  const router = useRouter();
  const params = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const callbackUrl = params.get("callbackUrl");

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email")),
      password: String(form.get("password")),
      redirect: false,
      callbackUrl: callbackUrl ?? "/projects",
    });
    setBusy(false);
    if (result?.ok) {
      // next-auth's answer went through the server's check (its redirect callback); checked
      // again here, against the origin the browser is on, before it is navigated to.
      router.push(safeRedirectPath(result.url ?? callbackUrl, window.location.origin));
      router.refresh();
      return;
    }
    setError(
      result?.error === "CredentialsSignin" ? "E-mail or password is wrong." : "Sign-in is not possible right now; try again later.",
    );
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <div>
        <Label htmlFor="email">E-mail</Label>
        <Input id="email" name="email" type="email" autoComplete="username" required />
      </div>
      <div>
        <Label htmlFor="password">Password</Label>
        <Input id="password" name="password" type="password" autoComplete="current-password" required />
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <Button type="submit" disabled={busy} className="w-full">
        {busy ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
