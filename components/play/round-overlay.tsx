"use client";

import { FlaskConical, Sword } from "lucide-react";
import { type ReactNode, useId } from "react";
import type { RoundResult } from "./engine";
import { SKINS, type SkinId } from "./progress";
import { GameButton } from "./ui";

/** A finished round and what became of it on the server. */
export type Outcome = {
  result: RoundResult;
  newBest: boolean;
  unlocked: SkinId[];
  state: "saving" | "saved" | "conflict" | "problem";
  note: string | null;
};

/** Laid over the play field between rounds. */
export function RoundOverlay({ children }: { children: ReactNode }) {
  return (
    <div className="absolute inset-0 flex items-center justify-center overflow-y-auto bg-indigo-950/70 p-4 text-center text-white backdrop-blur-[2px]">
      <div className="max-w-sm">{children}</div>
    </div>
  );
}

export function StartControls({
  label,
  potions,
  drink,
  hasSword,
  disabled,
  busy,
  error,
  onDrink,
  onStart,
}: {
  label: string;
  potions: number;
  drink: boolean;
  hasSword: boolean;
  disabled: boolean;
  busy: boolean;
  error: string | null;
  onDrink: (drink: boolean) => void;
  onStart: () => void;
}) {
  const drinkId = useId();
  return (
    <div className="mt-4 flex flex-col items-center gap-3">
      <label htmlFor={drinkId} className="flex items-center gap-2 text-sm text-indigo-100">
        <input
          id={drinkId}
          type="checkbox"
          checked={drink && potions > 0}
          disabled={potions === 0 || busy}
          onChange={(e) => onDrink(e.target.checked)}
          className="size-4 accent-amber-400"
        />
        <FlaskConical className="size-4 text-emerald-300" aria-hidden />
        Drink a potion: +1 life ({potions} left)
      </label>
      {hasSword && (
        <p className="flex items-center gap-1.5 text-xs text-sky-200">
          <Sword className="size-4" aria-hidden /> Your sword blocks the first bomb.
        </p>
      )}
      <GameButton className="px-8 py-3 text-base" disabled={disabled || busy} onClick={onStart}>
        {busy ? "Drinking…" : label}
      </GameButton>
      {error && (
        <p role="alert" className="text-sm text-red-200">
          {error}
        </p>
      )}
    </div>
  );
}

export function Lobby({ roundSeconds, children }: { roundSeconds: number; children: ReactNode }) {
  return (
    <>
      <h2 className="text-3xl font-black">
        <span className="text-amber-300">Coin</span> Cascade
      </h2>
      <p className="mt-2 text-sm text-indigo-100">
        Catch coins (+10) and stars (+50), dodge bombs. Catch in a row for up to ×5 points. Rounds last {roundSeconds} seconds.
      </p>
      <p className="mt-1 text-xs text-indigo-200">Mouse or finger: point where to go. Keyboard: ← → or A D, P to pause.</p>
      {children}
    </>
  );
}

const SAVED = "Saved: score on the board, coins in your wallet, progress in the cloud.";

export function RoundResults({ outcome, children }: { outcome: Outcome; children: ReactNode }) {
  const r = outcome.result;
  const problem = outcome.state === "problem";
  return (
    <>
      <h2 className="text-2xl font-black">{r.endReason === "lives" ? "Out of lives!" : "Time's up!"}</h2>
      <p className="mt-2 text-6xl font-black tabular-nums text-amber-300" data-testid="final-score">
        {r.score}
      </p>
      <p className="text-sm text-indigo-200">points{outcome.newBest && r.score > 0 ? " · new personal best!" : ""}</p>
      <p className="mt-2 text-sm">
        +{r.coins} coins · {r.caught} caught · best streak {r.bestCombo}
      </p>
      {outcome.unlocked.length > 0 && (
        <p className="mt-1 text-sm font-semibold text-emerald-200">
          Unlocked: {outcome.unlocked.map((id) => SKINS.find((s) => s.id === id)?.name).join(", ")} catcher
        </p>
      )}
      <p
        role={problem ? "alert" : "status"}
        data-testid="round-status"
        className={problem ? "mt-2 text-sm text-red-200" : "mt-2 text-sm text-indigo-200"}
      >
        {outcome.state === "saving" && "Saving your round…"}
        {outcome.state === "saved" && (outcome.note ?? SAVED)}
        {outcome.state === "conflict" && "Your progress changed elsewhere: choose which to keep."}
        {problem && outcome.note}
      </p>
      {children}
    </>
  );
}
