"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { ZEmailSettingsInput } from "@/server/services/email/schemas";
import { applyServerError, messageOf } from "./errors";
import { plainly, plainParsed } from "./plain-issues";
import { useProject } from "./project-context";

type Settings = RouterOutputs["email"]["settings"];
/** The form holds strings (an empty one: the default), checked by the service's own schema. */
const ZForm = z
  .object({ fromName: z.string(), fromAddress: z.string(), requireVerifiedEmail: z.boolean(), resetUnverifiedEmail: z.boolean() })
  .superRefine((values, ctx) => {
    for (const issue of ZEmailSettingsInput.safeParse(values, plainly).error?.issues ?? [])
      ctx.addIssue({ code: "custom", path: issue.path, message: plainParsed(issue) });
  });
type FormValues = z.infer<typeof ZForm>;
const FIELDS = ["fromName", "fromAddress", "requireVerifiedEmail", "resetUnverifiedEmail"] as const;

const valuesOf = (s: Settings): FormValues => ({
  fromName: s.fromName ?? "",
  fromAddress: s.fromAddress ?? "",
  requireVerifiedEmail: s.requireVerifiedEmail,
  resetUnverifiedEmail: s.resetUnverifiedEmail,
});

/**
 * Who players' e-mail comes from, and the two verification rules: whether e-mail sign-in needs a
 * verified address, and whether reset codes go to unverified ones. Viewers read it; admins change it.
 */
export function EmailSettingsCard({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const { canEdit } = useProject();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.email.settings.queryOptions({ projectId }));
  const save = useMutation(trpc.email.setSettings.mutationOptions());
  const form = useForm<FormValues>({
    resolver: zodResolver(ZForm, plainly),
    defaultValues: { fromName: "", fromAddress: "", requireVerifiedEmail: false, resetUnverifiedEmail: false },
  });
  const errors = form.formState.errors;
  const loaded = settings.data;
  // A refetch (window focus) must not throw away what the operator is typing.
  useEffect(() => {
    if (loaded && !form.formState.isDirty) form.reset(valuesOf(loaded));
  }, [loaded, form]);

  const submit = form.handleSubmit(async (values) => {
    try {
      const after = await save.mutateAsync({ projectId, ...values });
      queryClient.setQueryData(trpc.email.settings.queryKey({ projectId }), after);
      form.reset(valuesOf(after));
      toast.success("E-mail settings saved. New messages use them.");
    } catch (error) {
      applyServerError(error, form.setError, FIELDS);
    }
  });

  return (
    <Card title="Sender and verification">
      {settings.isPending ? (
        <State kind="loading">Loading…</State>
      ) : settings.error ? (
        <State kind="error">{messageOf(settings.error)}</State>
      ) : (
        <form noValidate onSubmit={submit} aria-label="E-mail settings" className="space-y-4">
          <fieldset disabled={!canEdit || form.formState.isSubmitting} className="space-y-4">
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
              <Field
                label="Sender name"
                htmlFor="email-from-name"
                error={errors.fromName}
                hint={`Empty: ${settings.data.defaults.fromName}.`}
              >
                <Input
                  id="email-from-name"
                  placeholder={settings.data.defaults.fromName}
                  aria-invalid={errors.fromName ? true : undefined}
                  aria-describedby={errors.fromName ? "email-from-name-error" : undefined}
                  {...form.register("fromName")}
                />
              </Field>
              <Field
                label="Sender address"
                htmlFor="email-from-address"
                error={errors.fromAddress}
                hint={`Empty: ${settings.data.defaults.fromAddress} (EMAIL_FROM). Your mail server must be allowed to send from it.`}
              >
                <Input
                  id="email-from-address"
                  type="email"
                  placeholder={settings.data.defaults.fromAddress}
                  aria-invalid={errors.fromAddress ? true : undefined}
                  aria-describedby={errors.fromAddress ? "email-from-address-error" : undefined}
                  {...form.register("fromAddress")}
                />
              </Field>
            </div>
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" className="mt-1" {...form.register("requireVerifiedEmail")} />
              <span>
                Players must verify their e-mail address before they can sign in with it. Signing in with an unverified address answers{" "}
                <code>EMAIL_NOT_VERIFIED</code>; the game can then ask for the code or send a new one.
              </span>
            </label>
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" className="mt-1" {...form.register("resetUnverifiedEmail")} />
              <span>
                Send password reset codes to addresses that were never verified. Off by default: a player who typed someone else's address
                should not be able to take over that address's mail.
              </span>
            </label>
          </fieldset>
          {canEdit ? (
            <Button type="submit" disabled={form.formState.isSubmitting || !form.formState.isDirty}>
              {form.formState.isSubmitting ? "Saving…" : "Save e-mail settings"}
            </Button>
          ) : (
            <p className="text-sm text-zinc-600">Admins and owners can change these settings.</p>
          )}
          <FieldError error={errors.root?.server} />
        </form>
      )}
    </Card>
  );
}
