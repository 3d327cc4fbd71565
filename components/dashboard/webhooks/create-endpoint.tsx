"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Pencil, Plus } from "lucide-react";
import { type ReactNode, useId, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { EVENT_TYPE_GROUPS, type WebhookEndpointInput, ZWebhookEndpointInput } from "@/server/services/webhooks/schemas";
import { applyServerError } from "../errors";
import { plainly } from "../plain-issues";

type Values = { url: string; description: string; eventTypes: WebhookEndpointInput["eventTypes"]; enabled: boolean };

/** The new-endpoint dialog: URL, description, event types in groups. Hands the secret (shown once) to `onCreated`. */
export function CreateEndpoint({ projectId, onCreated }: { projectId: string; onCreated: (secret: string, url: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.webhooks.create.mutationOptions());
  return (
    <EndpointDialog
      title="Add a webhook endpoint"
      description="Events of the chosen types are sent to this URL, signed with a secret you see once after saving (Standard Webhooks)."
      trigger={
        <Button>
          <Plus className="mr-1 size-4" aria-hidden />
          Add endpoint
        </Button>
      }
      submitLabel="Add endpoint"
      initial={{ url: "", description: "", eventTypes: [], enabled: true }}
      save={async (values) => {
        const created = await create.mutateAsync({ projectId, endpoint: values });
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ projectId }) });
        toast.success(`Added the endpoint ${created.endpoint.url}.`);
        onCreated(created.secret, created.endpoint.url);
      }}
    />
  );
}

/** Changes an endpoint's URL, description and event types (the secret stays). */
export function EditEndpoint({
  projectId,
  endpoint,
}: {
  projectId: string;
  endpoint: { id: string; url: string; description: string; eventTypes: string[]; enabled: boolean };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(trpc.webhooks.update.mutationOptions());
  return (
    <EndpointDialog
      title="Edit the webhook endpoint"
      description="The signing secret stays the same."
      trigger={
        <Button variant="secondary" aria-label={`Edit ${endpoint.url}`}>
          <Pencil className="mr-1 size-4" aria-hidden />
          Edit
        </Button>
      }
      submitLabel="Save"
      // Only the form's fields: the strict schema refuses the row's others (id, status, counts).
      initial={{
        url: endpoint.url,
        description: endpoint.description,
        eventTypes: endpoint.eventTypes as Values["eventTypes"],
        enabled: endpoint.enabled,
      }}
      save={async ({ url, description, eventTypes }) => {
        await update.mutateAsync({ projectId, endpointId: endpoint.id, patch: { url, description, eventTypes } });
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ projectId }) });
        toast.success(`Saved ${url}.`);
      }}
    />
  );
}

function EndpointDialog({
  title,
  description,
  trigger,
  submitLabel,
  initial,
  save,
}: {
  title: string;
  description: string;
  trigger: ReactNode;
  submitLabel: string;
  initial: Values;
  save: (values: Values) => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const form = useForm({ resolver: zodResolver(ZWebhookEndpointInput, plainly), defaultValues: initial });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (values) => {
    try {
      await save(values);
      form.reset(initial);
      setOpen(false);
    } catch (error) {
      applyServerError(error, form.setError, ["url", "description", "eventTypes"], { ALREADY_EXISTS: "url" });
    }
  });
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (next) form.reset(initial);
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent wide>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        <form onSubmit={submit} noValidate className="space-y-4">
          <Field label="URL" htmlFor={`${id}-url`} error={errors.url} hint="https://, reachable from this server.">
            <Input
              id={`${id}-url`}
              placeholder="https://example.com/webhooks/game"
              aria-invalid={errors.url ? true : undefined}
              aria-describedby={errors.url ? `${id}-url-error` : undefined}
              {...form.register("url")}
            />
          </Field>
          <Field label="Description (optional)" htmlFor={`${id}-description`} error={errors.description}>
            <Input
              id={`${id}-description`}
              placeholder="Discord bot"
              aria-invalid={errors.description ? true : undefined}
              {...form.register("description")}
            />
          </Field>
          <fieldset aria-describedby={errors.eventTypes ? `${id}-types-error` : undefined}>
            <legend className="mb-1 text-sm font-medium text-zinc-700">Event types</legend>
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
              {EVENT_TYPE_GROUPS.map((group) => (
                <div key={group.label} className="rounded-md border border-zinc-200 p-2">
                  <p className="mb-1 text-xs font-medium uppercase text-zinc-600">{group.label}</p>
                  {group.types.map((type) => (
                    <label key={type} className="flex items-center gap-2 py-0.5 text-sm">
                      <input type="checkbox" value={type} {...form.register("eventTypes")} />
                      <span className="font-mono text-xs">{type}</span>
                    </label>
                  ))}
                </div>
              ))}
            </div>
            <FieldError id={`${id}-types-error`} error={errors.eventTypes} />
          </fieldset>
          <FieldError error={errors.root?.server ?? errors.root} />
          <DialogFooter>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={form.formState.isSubmitting}>
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
