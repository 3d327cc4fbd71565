"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";

/** One data key as JSON, saved with the version it was read at (a concurrent change is a clear conflict). */
export function DataEditor({
  projectId,
  playerId,
  dataKey,
  onDone,
}: {
  projectId: string;
  playerId: string;
  dataKey: string;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const record = useQuery(trpc.players.data.queryOptions({ projectId, playerId, key: dataKey }));
  const [text, setText] = useState<string | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const save = useMutation(
    trpc.players.setData.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.players.get.queryKey({ projectId, playerId }) });
        onDone();
      },
    }),
  );
  if (record.isPending) return <State kind="loading">Loading {dataKey}…</State>;
  if (record.error) return <State kind="error">{messageOf(record.error)}</State>;
  const value = text ?? JSON.stringify(record.data.value, null, 2);
  const submit = () => {
    try {
      const parsed = JSON.parse(value);
      setParseError(null);
      save.mutate({ projectId, playerId, key: dataKey, value: parsed, version: record.data.version });
    } catch (error) {
      setParseError(`Not valid JSON: ${(error as Error).message}`);
    }
  };
  return (
    <div className="mt-3 space-y-2 rounded-md border border-zinc-200 p-3">
      <p className="text-sm text-zinc-600">
        Editing <code>{dataKey}</code> at version {record.data.version}.
      </p>
      <textarea
        aria-label={`Value of ${dataKey}`}
        className="h-48 w-full rounded-md border border-zinc-300 p-2 font-mono text-xs"
        value={value}
        onChange={(e) => setText(e.target.value)}
      />
      {(parseError || save.error) && (
        <p role="alert" className="text-sm text-red-700">
          {parseError ?? messageOf(save.error)}
        </p>
      )}
      <div className="flex gap-2">
        <Button onClick={submit} disabled={save.isPending}>
          Save
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </div>
  );
}
