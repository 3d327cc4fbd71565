"use client";

import { useEffect, useId, useRef } from "react";
import type { Progress } from "./progress";
import { GameButton } from "./ui";

function Summary({ title, progress, testId }: { title: string; progress: Progress | null; testId: string }) {
  return (
    <div className="flex-1 rounded-lg bg-white/[0.06] p-3" data-testid={testId}>
      <h3 className="text-sm font-semibold text-white">{title}</h3>
      {progress ? (
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-sm text-indigo-100">
          <dt>Best score</dt>
          <dd className="tabular-nums">{progress.bestScore}</dd>
          <dt>Rounds</dt>
          <dd className="tabular-nums">{progress.roundsPlayed}</dd>
          <dt>Unlocked</dt>
          <dd>{progress.unlocked.length}</dd>
        </dl>
      ) : (
        <p className="mt-1 text-sm text-indigo-100">Deleted from the cloud.</p>
      )}
    </div>
  );
}

/**
 * The cloud save changed since this device last read it (another device or tab played): the
 * player picks which progress to keep. A modal <dialog> (focus stays inside, Escape is refused:
 * a choice is needed).
 */
export function ConflictDialog({
  local,
  cloud,
  busy,
  error,
  onKeepCloud,
  onKeepLocal,
}: {
  local: Progress;
  cloud: Progress | null;
  busy: boolean;
  error: string | null;
  onKeepCloud: () => void;
  onKeepLocal: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(e) => e.preventDefault()}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-2xl border border-white/15 bg-indigo-950 p-5 text-white shadow-2xl backdrop:bg-black/60"
    >
      <h2 id={titleId} className="text-lg font-bold">
        Your progress changed on another device
      </h2>
      <p className="mt-1 text-sm text-indigo-200">Which progress do you want to keep? The other one is replaced.</p>
      <div className="mt-4 flex flex-col gap-3 sm:flex-row">
        <Summary title="In the cloud" progress={cloud} testId="conflict-cloud" />
        <Summary title="On this device" progress={local} testId="conflict-local" />
      </div>
      {error && (
        <p role="alert" className="mt-3 rounded-lg bg-red-500/15 px-3 py-2 text-sm text-red-200">
          {error}
        </p>
      )}
      <div className="mt-5 flex flex-col gap-2 sm:flex-row sm:justify-end">
        <GameButton variant="secondary" disabled={busy || cloud === null} onClick={onKeepCloud}>
          Keep cloud progress
        </GameButton>
        <GameButton disabled={busy} onClick={onKeepLocal}>
          {busy ? "Saving…" : "Keep this device's progress"}
        </GameButton>
      </div>
    </dialog>
  );
}
