"use client";

import { createClient, type GameClient, VersionConflictError } from "@game-backend/client";
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { AccountPanel, SignedOutPanel } from "./account-panel";
import { ConflictDialog } from "./conflict-dialog";
import type { RoundResult } from "./engine";
import { isMissing, plainError } from "./errors";
import { GameCanvas, type Play } from "./game-canvas";
import { BOARD, LeaderboardPanel } from "./leaderboard-panel";
import {
  DEFAULT_SETTINGS,
  NEW_PROGRESS,
  PROGRESS_KEY,
  type Progress,
  parseProgress,
  parseSettings,
  SETTINGS_KEY,
  type Settings,
  type SkinId,
  withRound,
} from "./progress";
import { ProgressPanel } from "./progress-panel";
import { Lobby, type Outcome, RoundOverlay, RoundResults, StartControls } from "./round-overlay";
import { SettingsPanel } from "./settings-panel";
import { afterPurchase, quantityOf, ShopPanel } from "./shop-panel";
import type { Profile, Wallet } from "./types";
import { GameButton, type Status } from "./ui";

/** The purchase that consumes a potion (costs 1 potion, gives nothing): the ledger records every potion drunk. */
const DRINK_POTION = "drink-potion";
const BASE_LIVES = 3;
const SIGNED_OUT = "You're signed out. Sign in to continue your progress, or play as a new guest.";

type Boot = { state: "connecting" | "ready" | "signed-out" | "error"; message?: string };
/** The progress this device knows and the save version it was read or written at (null: no save yet). */
type Cloud = { progress: Progress; version: number | null };
type Conflict = { local: Progress; cloud: Cloud | null };

/**
 * One client per page and key, created on first use in the browser: a second mount (React's
 * development double effects) reuses it instead of signing in a second guest.
 */
const connections = new Map<string, { game: GameClient; signedIn: Promise<void> }>();
function connect(apiKey: string): { game: GameClient; signedIn: Promise<void> } {
  const known = connections.get(apiKey);
  if (known) return known;
  const game = createClient({ baseUrl: window.location.origin, apiKey });
  // First visit: a guest account. Later visits: the SDK restores the session from localStorage.
  const signedIn = game.ready.then(async () => {
    if (!game.session) await game.auth.anonymous();
  });
  const connection = { game, signedIn };
  connections.set(apiKey, connection);
  signedIn.catch(() => connections.delete(apiKey));
  return connection;
}

/** The server's copy from a VersionConflictError on the progress save (null when it was deleted meanwhile). */
function cloudOf(error: VersionConflictError): Cloud | null {
  const current = error.current as { version?: unknown; data?: unknown } | null;
  if (!current || typeof current.version !== "number") return null;
  return { progress: parseProgress(current.data), version: current.version };
}

export function PlayApp({ apiKey, roundSeconds }: { apiKey: string; roundSeconds: number }) {
  const [game, setGame] = useState<GameClient | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [boot, setBoot] = useState<Boot>({ state: "connecting" });
  const [playerId, setPlayerId] = useState<string | null>(null);
  const [profile, setProfile] = useState<Profile | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadProblems, setLoadProblems] = useState<string[]>([]);
  const [settings, setSettings] = useState<Settings>(DEFAULT_SETTINGS);
  const [settingsStatus, setSettingsStatus] = useState<Status>(null);
  const settingsQueue = useRef<Promise<unknown>>(Promise.resolve());
  const [cloud, setCloudState] = useState<Cloud>({ progress: NEW_PROGRESS, version: null });
  const cloudRef = useRef(cloud);
  const [wallet, setWallet] = useState<Wallet>({ currencies: [], inventory: [] });
  const [play, setPlay] = useState<Play | null>(null);
  const [playing, setPlaying] = useState(false);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [drink, setDrink] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [resolving, setResolving] = useState(false);
  const [conflictError, setConflictError] = useState<string | null>(null);
  const [boardKey, setBoardKey] = useState(0);

  const setCloud = useCallback((next: Cloud) => {
    cloudRef.current = next;
    setCloudState(next);
  }, []);

  // Connect and sign in (a guest on the first visit); follow the session from then on.
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the retry button's way to run this again
  useEffect(() => {
    let live = true;
    setBoot({ state: "connecting" });
    const { game, signedIn } = connect(apiKey);
    setGame(game);
    const off = game.onSessionChange((session) => {
      if (!live) return;
      setPlayerId(session?.playerId ?? null);
      setBoot(session ? { state: "ready" } : { state: "signed-out", message: SIGNED_OUT });
    });
    signedIn.then(
      () => {
        if (!live) return;
        setPlayerId(game.session?.playerId ?? null);
        setBoot(game.session ? { state: "ready" } : { state: "signed-out", message: SIGNED_OUT });
      },
      (error: unknown) => live && setBoot({ state: "error", message: plainError(error) }),
    );
    return () => {
      live = false;
      off();
    };
  }, [apiKey, attempt]);

  // Everything the game shows about the player, loaded again whenever the player changes.
  useEffect(() => {
    if (!game || !playerId) return;
    let live = true;
    setLoading(true);
    setProfile(null);
    setOutcome(null);
    setConflict(null);
    void (async () => {
      const [me, stored, save, currencies, inventory] = await Promise.allSettled([
        game.players.me(),
        game.data.get(SETTINGS_KEY),
        game.saves.get(PROGRESS_KEY),
        game.economy.currencies(),
        game.economy.inventory(),
      ]);
      if (!live) return;
      const problems: string[] = [];
      if (me.status === "fulfilled") setProfile(me.value);
      else problems.push(`Your profile didn't load. ${plainError(me.reason)}`);
      if (stored.status === "fulfilled") setSettings(parseSettings(stored.value.value));
      else if (isMissing(stored.reason, "KEY_NOT_FOUND")) setSettings(DEFAULT_SETTINGS);
      else problems.push(`Your settings didn't load. ${plainError(stored.reason)}`);
      if (save.status === "fulfilled") setCloud({ progress: parseProgress(save.value.data), version: save.value.version });
      else if (isMissing(save.reason, "SAVE_NOT_FOUND")) setCloud({ progress: NEW_PROGRESS, version: null });
      else problems.push(`Your progress didn't load. ${plainError(save.reason)}`);
      if (currencies.status === "fulfilled" && inventory.status === "fulfilled") {
        setWallet({ currencies: currencies.value, inventory: inventory.value.filter((i) => i.quantity > 0) });
      } else {
        problems.push(
          `Your wallet didn't load. ${plainError(currencies.status === "rejected" ? currencies.reason : inventory.status === "rejected" ? inventory.reason : null)}`,
        );
      }
      setLoadProblems(problems);
      setLoading(false);
    })();
    return () => {
      live = false;
    };
  }, [game, playerId, setCloud]);

  const changeSettings = (next: Settings) => {
    if (!game) return;
    setSettings(next);
    setSettingsStatus({ tone: "info", text: "Saving…" });
    // One write at a time, in the order of the changes: the last change is what stays.
    const write = settingsQueue.current.then(() => game.data.set(SETTINGS_KEY, next));
    settingsQueue.current = write.catch(() => undefined);
    write.then(
      () => setSettingsStatus({ tone: "success", text: "Settings saved to your account." }),
      (error: unknown) => setSettingsStatus({ tone: "error", text: `Settings not saved. ${plainError(error)}` }),
    );
  };

  const putProgress = async (progress: Progress, version: number | null) => {
    if (!game) return;
    const saved = await game.saves.put(PROGRESS_KEY, progress, {
      meta: { label: `Best ${progress.bestScore} · ${progress.roundsPlayed} rounds`, device: "web" },
      ...(version === null ? { createOnly: true } : { ifVersion: version }),
    });
    setCloud({ progress, version: saved.version });
  };

  /** Writes progress at the version this device knows; another device's write opens the keep-cloud / keep-local choice. */
  const saveProgress = async (progress: Progress): Promise<"saved" | "conflict"> => {
    try {
      await putProgress(progress, cloudRef.current.version);
      return "saved";
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      setConflictError(null);
      setConflict({ local: progress, cloud: cloudOf(error) });
      return "conflict";
    }
  };

  const keepLocal = async () => {
    if (!conflict) return;
    setResolving(true);
    setConflictError(null);
    try {
      await putProgress(conflict.local, conflict.cloud?.version ?? null);
      setConflict(null);
      setOutcome((o) => o && { ...o, state: "saved", note: "Kept this device's progress." });
    } catch (error) {
      if (error instanceof VersionConflictError) setConflict({ local: conflict.local, cloud: cloudOf(error) });
      else setConflictError(plainError(error));
    } finally {
      setResolving(false);
    }
  };

  const keepCloud = () => {
    if (!conflict?.cloud) return;
    setCloud(conflict.cloud);
    setConflict(null);
    setOutcome((o) => o && { ...o, state: "saved", note: "Loaded the progress from the cloud." });
  };

  const potions = quantityOf(wallet, "potion");
  const hasSword = quantityOf(wallet, "sword") > 0;

  const start = async () => {
    if (!game) return;
    setStartError(null);
    let lives = BASE_LIVES;
    if (drink && potions > 0) {
      setStarting(true);
      try {
        const drunk = await game.economy.purchase(DRINK_POTION, { quantity: 1 });
        setWallet((w) => afterPurchase(w, drunk));
        lives += 1;
        setDrink(false);
      } catch (error) {
        setStartError(`The potion didn't work: ${plainError(error)} Untick it to play without.`);
        return;
      } finally {
        setStarting(false);
      }
    }
    setOutcome(null);
    setPlaying(true);
    setPlay({ id: Date.now(), config: { seconds: roundSeconds, difficulty: settings.difficulty, lives, shields: hasSword ? 1 : 0 } });
  };

  /** After a round: the score to the board, the coins to the wallet, the progress to the cloud save. */
  const finish = async (result: RoundResult) => {
    setPlaying(false);
    const before = cloudRef.current.progress;
    const { progress, newlyUnlocked } = withRound(before, result);
    setOutcome({ result, newBest: result.score > before.bestScore, unlocked: newlyUnlocked, state: "saving", note: null });
    if (!game) return;
    const problems: string[] = [];
    let saved: "saved" | "conflict" = "saved";
    await Promise.all([
      game.leaderboards
        .submit(BOARD, result.score, { metadata: { coins: result.coins, difficulty: settings.difficulty } })
        .then(() => setBoardKey((k) => k + 1))
        .catch((e: unknown) => problems.push(`Score not sent: ${plainError(e)}`)),
      (result.coins > 0 ? game.economy.add("coins", result.coins) : Promise.resolve(null))
        .then((coins) => {
          if (coins)
            setWallet((w) => ({ ...w, currencies: w.currencies.map((c) => (c.id === coins.id ? { ...c, balance: coins.balance } : c)) }));
        })
        .catch((e: unknown) => problems.push(`Coins not added: ${plainError(e)}`)),
      saveProgress(progress)
        .then((state) => {
          saved = state;
        })
        .catch((e: unknown) => problems.push(`Progress not saved: ${plainError(e)}`)),
    ]);
    setOutcome((o) => {
      if (!o) return o;
      if (problems.length > 0) return { ...o, state: "problem", note: problems.join(" ") };
      // A conflict the player already settled keeps the note of that choice.
      return o.state === "saving" ? { ...o, state: saved } : o;
    });
  };

  const skin: SkinId = cloud.progress.unlocked.includes(settings.skin) ? settings.skin : "classic";
  const ready = boot.state === "ready" && !loading && profile !== null;

  const controls = (label: string) => (
    <StartControls
      label={label}
      potions={potions}
      drink={drink}
      hasSword={hasSword}
      disabled={!ready || conflict !== null}
      busy={starting}
      error={startError}
      onDrink={setDrink}
      onStart={() => void start()}
    />
  );

  const overlay = (): ReactNode => {
    if (playing) return null;
    if (boot.state === "connecting" || (boot.state === "ready" && loading)) {
      return (
        <RoundOverlay>
          <p role="status" className="text-lg font-semibold">
            Connecting to the game server…
          </p>
        </RoundOverlay>
      );
    }
    if (boot.state === "error") {
      return (
        <RoundOverlay>
          <p role="alert">{boot.message}</p>
          <GameButton className="mt-4" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </GameButton>
        </RoundOverlay>
      );
    }
    if (boot.state === "signed-out") {
      return (
        <RoundOverlay>
          <p>Sign in below, or play as a new guest, to start.</p>
        </RoundOverlay>
      );
    }
    return (
      <RoundOverlay>
        {outcome ? (
          <RoundResults outcome={outcome}>{controls("Play again")}</RoundResults>
        ) : (
          <Lobby roundSeconds={roundSeconds}>{controls("Play")}</Lobby>
        )}
      </RoundOverlay>
    );
  };

  const p = cloud.progress;
  return (
    <div className="min-h-screen bg-gradient-to-b from-[#0b1026] via-indigo-950 to-[#1a1033] text-white">
      <header className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-2 px-4 py-3">
        <h1 className="text-xl font-black tracking-tight">
          <span className="text-amber-300">Coin</span> Cascade <span className="text-xs font-medium text-indigo-300">sample game</span>
        </h1>
        <p className="text-sm text-indigo-200" data-testid="playing-as">
          {boot.state === "signed-out" ? "Signed out" : profile ? `Playing as ${profile.displayName ?? "Guest"}` : "Connecting…"}
        </p>
      </header>
      {/* Phones stack game, scores and shop, then account and settings; wide screens put scores and shop beside them. */}
      <main className="mx-auto grid max-w-6xl items-start gap-4 px-4 pb-10 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="min-w-0 space-y-4">
          <GameCanvas
            play={play}
            settings={{ ...settings, skin }}
            idle={{ seconds: roundSeconds, lives: BASE_LIVES + (drink && potions > 0 ? 1 : 0), shields: hasSword ? 1 : 0 }}
            onEnd={(r) => void finish(r)}
          >
            {overlay()}
          </GameCanvas>
          {loadProblems.length > 0 && (
            <div role="alert" className="rounded-xl bg-red-500/15 px-4 py-3 text-sm text-red-200">
              {loadProblems.map((m) => (
                <p key={m}>{m}</p>
              ))}
            </div>
          )}
          {game && boot.state === "signed-out" && <SignedOutPanel game={game} reason={boot.message ?? SIGNED_OUT} />}
        </div>
        {game && playerId && boot.state === "ready" && (
          <aside className="min-w-0 space-y-4 lg:col-start-2 lg:row-span-2 lg:row-start-1" aria-label="Scores, shop and progress">
            <LeaderboardPanel game={game} playerId={playerId} refreshKey={boardKey} />
            <ShopPanel game={game} wallet={wallet} loading={loading} sound={settings.sound} onWallet={setWallet} />
            <ProgressPanel progress={p} version={cloud.version} />
          </aside>
        )}
        {game && profile && boot.state === "ready" && (
          <div className="grid min-w-0 gap-4 md:grid-cols-2 lg:col-start-1">
            <AccountPanel key={profile.playerId} game={game} profile={profile} onProfile={setProfile} />
            <SettingsPanel settings={settings} progress={p} disabled={loading} status={settingsStatus} onChange={changeSettings} />
          </div>
        )}
      </main>
      {conflict && (
        <ConflictDialog
          local={conflict.local}
          cloud={conflict.cloud?.progress ?? null}
          busy={resolving}
          error={conflictError}
          onKeepCloud={keepCloud}
          onKeepLocal={() => void keepLocal()}
        />
      )}
    </div>
  );
}
