"use client";

import type { GameClient } from "@game-backend/client";
import { RefreshCw } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { cx } from "@/components/ui/cx";
import { isMissing, plainError } from "./errors";
import type { BoardAroundMe, BoardEntry, BoardPage } from "./types";
import { GameButton, Panel } from "./ui";

export const BOARD = "high-scores";
const TOP = 10;

type Board = { top: BoardPage; me: BoardAroundMe | null };

/** The player's own entry with its neighbours, in rank order. */
const aroundOf = (me: BoardAroundMe): BoardEntry[] => [...(me.above ?? []), me, ...(me.below ?? [])];

function Entries({ entries, playerId, label }: { entries: BoardEntry[]; playerId: string; label: string }) {
  return (
    <ol aria-label={label} className="space-y-1">
      {entries.map((e) => {
        const mine = e.playerId === playerId;
        return (
          <li
            key={e.playerId}
            data-testid={mine ? "board-me" : "board-row"}
            aria-current={mine ? "true" : undefined}
            className={cx(
              "flex items-center gap-3 rounded-lg px-3 py-1.5 text-sm",
              mine ? "bg-amber-400/20 font-semibold text-amber-100" : "text-white odd:bg-white/[0.04]",
            )}
          >
            <span className="w-8 tabular-nums text-indigo-200">#{e.rank}</span>
            <span className="min-w-0 flex-1 truncate">
              {e.displayName ?? `Guest ${e.playerId.slice(-4)}`}
              {mine && " (you)"}
            </span>
            <span className="tabular-nums">{e.score}</span>
          </li>
        );
      })}
    </ol>
  );
}

/** Top ten of `high-scores` and the player's neighbourhood; reloads when `refreshKey` changes (after a round). */
export function LeaderboardPanel({ game, playerId, refreshKey }: { game: GameClient; playerId: string; refreshKey: number }) {
  const [board, setBoard] = useState<Board | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  const load = useCallback(async () => {
    setLoading(true);
    setError(null);
    try {
      const [top, me] = await Promise.all([
        game.leaderboards.page(BOARD, { offset: 0, limit: TOP }),
        game.leaderboards.me(BOARD, { range: 3 }).catch((e: unknown) => {
          if (isMissing(e, "ENTRY_NOT_FOUND")) return null;
          throw e;
        }),
      ]);
      setBoard({ top, me });
    } catch (e) {
      setError(plainError(e));
    } finally {
      setLoading(false);
    }
  }, [game]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey and playerId are the reasons to reload
  useEffect(() => {
    void load();
  }, [load, refreshKey, playerId]);

  return (
    <Panel
      title="High scores"
      actions={
        <GameButton variant="ghost" onClick={() => void load()} disabled={loading} aria-label="Refresh high scores">
          <RefreshCw className={cx("size-4", loading && "animate-spin")} aria-hidden />
        </GameButton>
      }
    >
      {error ? (
        <p role="alert" className="text-sm text-red-200">
          {error}
        </p>
      ) : !board ? (
        <p role="status" className="text-sm text-indigo-200">
          Loading the board…
        </p>
      ) : (
        <div className="space-y-4" data-testid="board">
          {board.top.entries.length === 0 ? (
            <p className="text-sm text-indigo-200">No scores yet. Be the first!</p>
          ) : (
            <Entries entries={board.top.entries} playerId={playerId} label={`Top ${TOP}`} />
          )}
          <div>
            <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-indigo-200">
              Around you{board.top.total > 0 && ` · ${board.top.total} ${board.top.total === 1 ? "player" : "players"}`}
            </h3>
            {!board.me ? (
              <p className="text-sm text-indigo-200">Play a round to get on the board.</p>
            ) : board.me.rank <= TOP ? (
              <p className="text-sm text-amber-100">
                You're #{board.me.rank}: in the top {TOP}!
              </p>
            ) : (
              <Entries entries={aroundOf(board.me)} playerId={playerId} label="Around you" />
            )}
          </div>
        </div>
      )}
    </Panel>
  );
}
