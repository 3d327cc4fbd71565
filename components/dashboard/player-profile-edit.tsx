"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Download, Eye, Pencil } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useTRPC } from "@/components/providers/trpc";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input, State } from "@/components/ui/primitives";
import { ZDisplayName } from "@/server/services/profiles/schemas";
import { applyServerError, messageOf } from "./errors";
import { when } from "./format";
import { plainly } from "./plain-issues";

/** The API's display-name rule; an empty field clears the name. */
const ZNameForm = z.object({ displayName: z.union([z.literal(""), ZDisplayName]) });

/** Edits the player's display name in place (audited as player.display-name with before and after). */
export function DisplayNameEditor({
  projectId,
  playerId,
  current,
  onSaved,
}: {
  projectId: string;
  playerId: string;
  current: string | null;
  onSaved: () => unknown;
}) {
  const trpc = useTRPC();
  const [editing, setEditing] = useState(false);
  const save = useMutation(trpc.players.setDisplayName.mutationOptions());
  const form = useForm({ resolver: zodResolver(ZNameForm, plainly), defaultValues: { displayName: current ?? "" } });
  const errors = form.formState.errors;
  if (!editing)
    return (
      <Button
        variant="secondary"
        onClick={() => {
          form.reset({ displayName: current ?? "" });
          setEditing(true);
        }}
      >
        <Pencil className="mr-1 size-4" aria-hidden />
        Edit name
      </Button>
    );
  return (
    <form
      noValidate
      className="flex w-full flex-col gap-2 sm:w-auto sm:flex-row sm:items-start"
      onSubmit={form.handleSubmit(async ({ displayName }) => {
        try {
          await save.mutateAsync({ projectId, playerId, displayName: displayName === "" ? null : displayName });
          toast.success(displayName === "" ? "Display name cleared." : "Display name saved.");
          setEditing(false);
          await onSaved();
        } catch (error) {
          applyServerError(error, form.setError, ["displayName"]);
        }
      })}
    >
      <Field label="Display name" htmlFor="player-display-name" error={errors.displayName} hint="1–32 characters; empty clears it.">
        <Input id="player-display-name" autoFocus aria-invalid={errors.displayName ? true : undefined} {...form.register("displayName")} />
      </Field>
      <div className="flex gap-2 sm:mt-6">
        <Button type="submit" disabled={form.formState.isSubmitting}>
          Save name
        </Button>
        <Button variant="secondary" onClick={() => setEditing(false)}>
          Cancel
        </Button>
      </div>
      <FieldError error={errors.root?.server} />
    </form>
  );
}

function downloadJson(doc: unknown, filename: string): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  URL.revokeObjectURL(url);
}

/** A cloud save's contents, read-only, as formatted JSON with a download. */
export function SaveViewer({ projectId, playerId, saveKey }: { projectId: string; playerId: string; saveKey: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const save = useQuery({ ...trpc.players.save.queryOptions({ projectId, playerId, key: saveKey }), enabled: open });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="secondary">
          <Eye className="mr-1 size-4" aria-hidden />
          View {saveKey}
        </Button>
      </DialogTrigger>
      <DialogContent className="max-w-3xl">
        <DialogHeader>
          <DialogTitle>Save “{saveKey}”</DialogTitle>
          <DialogDescription>
            {save.data
              ? `Version ${save.data.version}, ${save.data.sizeBytes.toLocaleString()} bytes, updated ${when(save.data.updatedAt)}.`
              : "Read-only."}
          </DialogDescription>
        </DialogHeader>
        {save.isPending ? (
          <State kind="loading">Loading the save…</State>
        ) : save.error ? (
          <State kind="error">{messageOf(save.error)}</State>
        ) : (
          <>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
            <section tabIndex={0} aria-label={`Contents of ${saveKey}`} className="max-h-[60vh] overflow-auto rounded-md bg-zinc-50 p-3">
              <pre data-testid="save-contents" className="font-mono text-xs text-zinc-900">
                {JSON.stringify(save.data.data, null, 2)}
              </pre>
            </section>
            <div className="flex justify-end">
              <Button variant="secondary" onClick={() => downloadJson(save.data, `player-${playerId}-save-${saveKey}.json`)}>
                <Download className="mr-1 size-4" aria-hidden />
                Download JSON
              </Button>
            </div>
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}
