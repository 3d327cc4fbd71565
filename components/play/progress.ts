import type { Difficulty, RoundResult } from "./engine";

/**
 * What the game keeps about a player. Settings are player data (key `settings`, last write
 * wins); progress is a cloud save (key `progress`, written with its version so two devices
 * never overwrite each other silently). Both are parsed defensively: a save written by an older
 * build, or edited by an operator, still loads.
 */
export const SETTINGS_KEY = "settings";
export const PROGRESS_KEY = "progress";

export type SkinId = "classic" | "gold" | "neon" | "ruby";
export type Settings = { sound: boolean; difficulty: Difficulty; skin: SkinId; reducedMotion: boolean };
export type Progress = { bestScore: number; roundsPlayed: number; coinsEarned: number; bestCombo: number; unlocked: SkinId[] };

export const DEFAULT_SETTINGS: Settings = { sound: true, difficulty: "normal", skin: "classic", reducedMotion: false };
export const NEW_PROGRESS: Progress = { bestScore: 0, roundsPlayed: 0, coinsEarned: 0, bestCombo: 0, unlocked: ["classic"] };

export const SKINS: { id: SkinId; name: string; how: string; unlocked: (p: Progress) => boolean }[] = [
  { id: "classic", name: "Classic", how: "Yours from the start", unlocked: () => true },
  { id: "gold", name: "Gold", how: "Score 1,500 in one round", unlocked: (p) => p.bestScore >= 1500 },
  { id: "neon", name: "Neon", how: "Play 5 rounds", unlocked: (p) => p.roundsPlayed >= 5 },
  { id: "ruby", name: "Ruby", how: "Catch 25 in a row", unlocked: (p) => p.bestCombo >= 25 },
];
const SKIN_IDS = new Set<string>(SKINS.map((s) => s.id));
const DIFFICULTIES = new Set<string>(["easy", "normal", "hard"]);

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0);

export function parseSettings(value: unknown): Settings {
  const v = record(value);
  return {
    sound: typeof v.sound === "boolean" ? v.sound : DEFAULT_SETTINGS.sound,
    difficulty:
      typeof v.difficulty === "string" && DIFFICULTIES.has(v.difficulty) ? (v.difficulty as Difficulty) : DEFAULT_SETTINGS.difficulty,
    skin: typeof v.skin === "string" && SKIN_IDS.has(v.skin) ? (v.skin as SkinId) : DEFAULT_SETTINGS.skin,
    reducedMotion: typeof v.reducedMotion === "boolean" ? v.reducedMotion : DEFAULT_SETTINGS.reducedMotion,
  };
}

export function parseProgress(value: unknown): Progress {
  const v = record(value);
  const unlocked = Array.isArray(v.unlocked) ? v.unlocked.filter((s): s is SkinId => typeof s === "string" && SKIN_IDS.has(s)) : [];
  return {
    bestScore: count(v.bestScore),
    roundsPlayed: count(v.roundsPlayed),
    coinsEarned: count(v.coinsEarned),
    bestCombo: count(v.bestCombo),
    unlocked: unlocked.includes("classic") ? unlocked : ["classic", ...unlocked],
  };
}

/** Progress after a round, and the skins this round unlocked. */
export function withRound(progress: Progress, round: RoundResult): { progress: Progress; newlyUnlocked: SkinId[] } {
  const next: Progress = {
    bestScore: Math.max(progress.bestScore, round.score),
    roundsPlayed: progress.roundsPlayed + 1,
    coinsEarned: progress.coinsEarned + round.coins,
    bestCombo: Math.max(progress.bestCombo, round.bestCombo),
    unlocked: progress.unlocked,
  };
  const newlyUnlocked = SKINS.filter((s) => s.unlocked(next) && !progress.unlocked.includes(s.id)).map((s) => s.id);
  return { progress: { ...next, unlocked: [...progress.unlocked, ...newlyUnlocked] }, newlyUnlocked };
}
