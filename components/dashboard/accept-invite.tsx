"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Input, Label, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { PASSWORD_RULES } from "./password-rules";

export function AcceptInvite({ token }: { token: string }) {
  const trpc = useTRPC();
  const invite = useQuery({ ...trpc.members.invite.queryOptions({ token }), retry: false });
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const router = useRouter();
  const accept = useMutation(trpc.members.accept.mutationOptions());
  // After the account exists: signed in with the password just chosen, then into the project.
  const [signedIn, setSignedIn] = useState<"pending" | "failed" | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const accepted = await accept.mutateAsync({ token, name, password }).catch(() => null);
    if (!accepted) return;
    setSignedIn("pending");
    const result = await signIn("credentials", { email: accepted.email, password, redirect: false }).catch(() => null);
    if (!result?.ok) {
      setSignedIn("failed");
      return;
    }
    router.push(`/projects/${accepted.projectId}`);
    router.refresh();
  };
  if (accept.isSuccess) {
    return signedIn === "failed" ? (
      <p role="status" className="text-sm">
        Your account {accept.data.email} is ready, but signing in did not work.{" "}
        <Link className="text-blue-700 underline" href="/login">
          Sign in
        </Link>
        .
      </p>
    ) : (
      <State kind="loading">Your account {accept.data.email} is ready. Signing you in…</State>
    );
  }
  if (invite.isPending) return <State kind="loading">Checking the invite…</State>;
  if (invite.error) return <State kind="error">{messageOf(invite.error)}</State>;
  return (
    <form onSubmit={submit} className="space-y-4">
      <p className="text-sm text-zinc-600">
        Join <strong>{invite.data.project}</strong> as {invite.data.role.toLowerCase()} with <strong>{invite.data.email}</strong>.
      </p>
      <div>
        <Label htmlFor="name">Your name</Label>
        <Input id="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
      </div>
      <div>
        <Label htmlFor="password">Choose a password</Label>
        <Input
          id="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
          minLength={8}
          maxLength={128}
          aria-describedby="password-rules"
        />
        <p id="password-rules" className="mt-1 text-xs text-zinc-600">
          {PASSWORD_RULES}
        </p>
      </div>
      {accept.error && (
        <p role="alert" className="text-sm text-red-700">
          {messageOf(accept.error)}
        </p>
      )}
      <Button type="submit" disabled={accept.isPending} className="w-full">
        Create my account
      </Button>
    </form>
  );
}
