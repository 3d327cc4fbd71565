"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Trash2, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Badge, Button, Card, Input, State, Table } from "@/components/ui/primitives";
import { MAX_NOTE_CHARS, MAX_TAGS_PER_PLAYER, ZTag } from "@/server/services/players/notes-schemas";
import { messageOf } from "./errors";
import { When } from "./when";

type Support = RouterOutputs["support"]["player"];

/** The support parts of a player's page: activity, notes and tags, board entries, ban history. */
export function PlayerSupport({ projectId, playerId, canEdit }: { projectId: string; playerId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const support = useQuery(trpc.support.player.queryOptions({ projectId, playerId }));
  if (support.isPending) return <State kind="loading">Loading support details…</State>;
  if (support.error) return <State kind="error">{messageOf(support.error)}</State>;
  const s = support.data;
  return (
    <>
      <Card title="Activity">
        <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-zinc-500">Last seen</dt>
            <dd data-testid="player-last-seen">
              {s.lastSeenAt ? <When value={s.lastSeenAt} /> : "never"}
              {s.lastSeenSource === "login" && <span className="ml-1 text-xs text-zinc-500">(last sign-in)</span>}
            </dd>
          </div>
          <div>
            <dt className="text-zinc-500">Client version</dt>
            <dd className="font-mono text-xs">{s.clientVersion ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-zinc-500">Platform</dt>
            <dd>{s.platform ?? "—"}</dd>
          </div>
        </dl>
      </Card>
      <NotesAndTags projectId={projectId} playerId={playerId} canEdit={canEdit} support={s} />
      <Card title="Leaderboard entries">
        {s.boards.length === 0 ? (
          <State kind="empty">No leaderboard entries.</State>
        ) : (
          <Table head={["Board", "Period", "Rank", "Score", "Updated"]}>
            {s.boards.map((b) => (
              <tr key={`${b.leaderboardId}/${b.period}`} data-testid="player-board-entry">
                <td className="px-2 py-2">
                  <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/leaderboards/${b.leaderboardId}`}>
                    {b.name}
                  </Link>
                </td>
                <td className="px-2 py-2 font-mono text-xs">{b.period}</td>
                <td className="px-2 py-2">#{b.rank.toLocaleString()}</td>
                <td className="px-2 py-2">{b.score.toLocaleString()}</td>
                <td className="px-2 py-2">
                  <When value={b.updatedAt} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card
        title="Ban history"
        actions={
          <Link className="text-sm underline" href={`/projects/${projectId}/audit?target=${playerId}`}>
            Everything done to this player
          </Link>
        }
      >
        {s.banHistory.length === 0 ? (
          <State kind="empty">Never banned.</State>
        ) : (
          <Table head={["When", "What", "Who", "Reason", "Until"]}>
            {s.banHistory.map((b) => (
              <tr key={`${b.createdAt}-${b.action}`} data-testid="player-ban-history">
                <td className="px-2 py-2">
                  <When value={b.createdAt} />
                </td>
                <td className="px-2 py-2">{b.action.includes("unban") ? "Unbanned" : "Banned"}</td>
                <td className="break-words px-2 py-2">{b.operatorEmail ?? "the system"}</td>
                <td className="break-words px-2 py-2">{b.reason ?? "—"}</td>
                <td className="px-2 py-2">{b.action.includes("unban") ? "—" : b.until ? <When value={b.until} /> : "until unbanned"}</td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}

function NotesAndTags(o: { projectId: string; playerId: string; canEdit: boolean; support: Support }) {
  const { projectId, playerId, canEdit, support } = o;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.support.player.queryKey({ projectId, playerId }) });
  const failed = (error: unknown) => toast.error(messageOf(error));
  const [note, setNote] = useState("");
  const [tag, setTag] = useState("");
  const [tagError, setTagError] = useState<string | null>(null);
  const addNote = useMutation(
    trpc.support.addNote.mutationOptions({
      onSuccess: async () => {
        setNote("");
        toast.success("Note added.");
        await refresh();
      },
      onError: failed,
    }),
  );
  const deleteNote = useMutation(trpc.support.deleteNote.mutationOptions({ onSuccess: refresh, onError: failed }));
  const setTags = useMutation(
    trpc.support.setTags.mutationOptions({
      onSuccess: async () => {
        await refresh();
        await queryClient.invalidateQueries({ queryKey: trpc.support.tags.queryKey({ projectId }) });
      },
      onError: failed,
    }),
  );
  const submitTag = () => {
    const parsed = ZTag.safeParse(tag);
    if (!parsed.success) return setTagError(parsed.error.issues[0]?.message ?? "Not a tag.");
    if (support.tags.length >= MAX_TAGS_PER_PLAYER && !support.tags.includes(parsed.data))
      return setTagError(`At most ${MAX_TAGS_PER_PLAYER} tags per player.`);
    setTagError(null);
    setTag("");
    setTags.mutate({ projectId, playerId, tags: [...support.tags, parsed.data] });
  };
  const chars = note.trim().length;
  return (
    <Card title="Notes and tags">
      <div className="space-y-4">
        <div>
          <h3 className="mb-2 text-sm font-medium text-zinc-700">Tags</h3>
          <ul className="flex flex-wrap gap-2" aria-label="Tags" data-testid="player-tags">
            {support.tags.length === 0 && <li className="text-sm text-zinc-500">No tags.</li>}
            {support.tags.map((t) => (
              <li key={t} className="flex items-center gap-1">
                <Link href={`/projects/${projectId}/players?tag=${t}`} className="hover:underline">
                  <Badge>{t}</Badge>
                </Link>
                {canEdit && (
                  <button
                    type="button"
                    className="rounded p-0.5 text-zinc-500 hover:text-zinc-900 focus-visible:ring-2 focus-visible:ring-zinc-300"
                    aria-label={`Remove the tag ${t}`}
                    disabled={setTags.isPending}
                    onClick={() => setTags.mutate({ projectId, playerId, tags: support.tags.filter((x) => x !== t) })}
                  >
                    <X className="size-3.5" aria-hidden />
                  </button>
                )}
              </li>
            ))}
          </ul>
          {canEdit && (
            <form
              className="mt-2 flex max-w-md gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                submitTag();
              }}
            >
              <Input
                aria-label="New tag"
                placeholder="vip, refund-2026"
                value={tag}
                maxLength={32}
                aria-invalid={tagError ? true : undefined}
                aria-describedby={tagError ? "player-tag-error" : undefined}
                onChange={(e) => setTag(e.target.value)}
              />
              <Button type="submit" variant="secondary" disabled={setTags.isPending || !tag.trim()}>
                <Plus className="mr-1 size-4" aria-hidden />
                Add tag
              </Button>
            </form>
          )}
          {tagError && (
            <p id="player-tag-error" className="mt-1 text-sm text-red-700">
              {tagError}
            </p>
          )}
        </div>
        <div>
          <h3 className="mb-2 text-sm font-medium text-zinc-700">Notes</h3>
          <p className="mb-2 text-xs text-zinc-500">Only operators of this project see notes; the player never does.</p>
          {canEdit && (
            <form
              className="mb-3 space-y-2"
              onSubmit={(e) => {
                e.preventDefault();
                addNote.mutate({ projectId, playerId, body: note });
              }}
            >
              <label htmlFor="player-note" className="sr-only">
                New note
              </label>
              <textarea
                id="player-note"
                className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-zinc-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-300"
                rows={3}
                maxLength={MAX_NOTE_CHARS}
                placeholder="What happened, what was promised, what to check next time"
                value={note}
                onChange={(e) => setNote(e.target.value)}
              />
              <div className="flex items-center justify-between gap-2">
                <span className="text-xs text-zinc-500" aria-live="polite">
                  {chars.toLocaleString()} / {MAX_NOTE_CHARS.toLocaleString()}
                </span>
                <Button type="submit" disabled={addNote.isPending || chars === 0}>
                  Add note
                </Button>
              </div>
            </form>
          )}
          {support.notes.length === 0 ? (
            <State kind="empty">No notes.</State>
          ) : (
            <ul className="space-y-2" data-testid="player-notes">
              {support.notes.map((n) => (
                <li key={n.id} className="rounded-md border border-zinc-200 p-3" data-testid="player-note">
                  <p className="whitespace-pre-wrap break-words text-sm">{n.body}</p>
                  <div className="mt-2 flex flex-wrap items-center justify-between gap-2 text-xs text-zinc-500">
                    <span>
                      {n.authorEmail ?? "a removed operator"} · <When value={n.createdAt} />
                    </span>
                    {canEdit && (n.mine || support.mayDeleteAnyNote) && (
                      <ConfirmDialog
                        trigger={
                          <Button variant="secondary" aria-label="Delete this note">
                            <Trash2 className="size-4 sm:mr-1" aria-hidden />
                            <span className="max-sm:sr-only">Delete</span>
                          </Button>
                        }
                        title="Delete this note?"
                        description="It is gone for every operator; the audit log keeps that it existed, not what it said."
                        confirmLabel="Delete note"
                        onConfirm={() => deleteNote.mutateAsync({ projectId, playerId, noteId: n.id })}
                      />
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </Card>
  );
}
