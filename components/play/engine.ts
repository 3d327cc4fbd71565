/**
 * Coin Cascade's rules, free of the DOM: coins, stars and bombs fall; the catcher at the bottom
 * catches them. Positions are fractions of the play field (x of its width, y of its height), so a
 * round plays the same on a phone and on a wide screen and survives a resize; collisions are
 * measured in pixels of the current field. `step` mutates the round and returns what happened,
 * for sound and effects.
 */

export type Difficulty = "easy" | "normal" | "hard";
export type DropKind = "coin" | "star" | "bomb";
export type Drop = { id: number; kind: DropKind; x: number; y: number; speed: number; phase: number };
export type Popup = { x: number; y: number; text: string; color: string; age: number };
export type Field = { width: number; height: number };

export type RoundConfig = { seconds: number; difficulty: Difficulty; lives: number; shields: number };

export type RoundState = {
  config: RoundConfig;
  elapsed: number;
  catcherX: number;
  drops: Drop[];
  popups: Popup[];
  score: number;
  coins: number;
  lives: number;
  shields: number;
  combo: number;
  bestCombo: number;
  caught: number;
  /** Seconds of screen shake left (a bomb hit). */
  shake: number;
  over: boolean;
  endReason: "time" | "lives" | null;
  spawnIn: number;
  warmup: number[];
  nextId: number;
};

export type RoundResult = { score: number; coins: number; bestCombo: number; caught: number; endReason: "time" | "lives"; seconds: number };
export type GameEvent = { kind: "coin" | "star" | "bomb" | "shield" | "miss" | "end" };
/** dir from the keyboard (-1 left, 1 right); targetX from a pointer or finger (fraction of the width), null when none. */
export type Controls = { dir: -1 | 0 | 1; targetX: number | null };

/** The catcher's line, as a fraction of the field's height. */
export const CATCHER_Y = 0.9;

type Tuning = { fall: [number, number]; every: [number, number]; bombs: number; stars: number };
const TUNING: Record<Difficulty, Tuning> = {
  // fall: fractions of the height per second at 0 s and after a minute; every: seconds between drops.
  easy: { fall: [0.3, 0.52], every: [0.55, 0.36], bombs: 0.12, stars: 0.07 },
  normal: { fall: [0.38, 0.68], every: [0.45, 0.28], bombs: 0.18, stars: 0.06 },
  hard: { fall: [0.46, 0.88], every: [0.38, 0.22], bombs: 0.26, stars: 0.05 },
};
/**
 * Every round opens with three coins straight above the catcher's starting place and no bombs for
 * the first 1.6 s: a player who just watches still scores, and learns what to catch.
 */
const WARMUP_COINS = [0.2, 0.55, 0.9];
const WARMUP_SPEED = 0.6;
const NO_BOMBS_BEFORE = 1.6;
const KEY_SPEED = 1.25;
const MAX_MULTIPLIER = 5;

export function newRound(config: RoundConfig): RoundState {
  return {
    config,
    elapsed: 0,
    catcherX: 0.5,
    drops: [],
    popups: [],
    score: 0,
    coins: 0,
    lives: config.lives,
    shields: config.shields,
    combo: 0,
    bestCombo: 0,
    caught: 0,
    shake: 0,
    over: false,
    endReason: null,
    spawnIn: 0.35,
    warmup: [...WARMUP_COINS],
    nextId: 1,
  };
}

/** Points are multiplied by 1 + one for every 5 catches in a row, up to ×5. */
export function multiplier(combo: number): number {
  return Math.min(MAX_MULTIPLIER, 1 + Math.floor(combo / 5));
}

/** The catcher's width as a fraction of the field's width: wider on narrow (phone) fields. */
export function catcherWidth(field: Field): number {
  return field.width < 500 ? 0.24 : 0.15;
}

/** A drop's radius in pixels. */
export function dropRadius(field: Field, kind: DropKind): number {
  const base = Math.max(9, Math.min(field.width, field.height) * 0.032);
  return kind === "star" ? base * 1.15 : base;
}

export function secondsLeft(round: RoundState): number {
  return Math.max(0, round.config.seconds - round.elapsed);
}

export function resultOf(round: RoundState): RoundResult {
  return {
    score: round.score,
    coins: round.coins,
    bestCombo: round.bestCombo,
    caught: round.caught,
    endReason: round.endReason ?? "time",
    seconds: Math.round(Math.min(round.elapsed, round.config.seconds)),
  };
}

const lerp = (a: number, b: number, t: number) => a + (b - a) * t;
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function spawn(round: RoundState, random: () => number): void {
  const tuning = TUNING[round.config.difficulty];
  const ramp = Math.min(1, round.elapsed / 60);
  const roll = random();
  let kind: DropKind = "coin";
  if (round.elapsed >= NO_BOMBS_BEFORE && roll < tuning.bombs) kind = "bomb";
  else if (roll > 1 - tuning.stars) kind = "star";
  const fall = lerp(tuning.fall[0], tuning.fall[1], ramp) * (0.85 + random() * 0.3);
  round.drops.push({
    id: round.nextId++,
    kind,
    x: 0.06 + random() * 0.88,
    y: -0.05,
    speed: kind === "star" ? fall * 1.45 : fall,
    phase: random() * Math.PI * 2,
  });
  round.spawnIn = lerp(tuning.every[0], tuning.every[1], ramp) * (0.7 + random() * 0.6);
}

function popup(round: RoundState, x: number, text: string, color: string): void {
  round.popups.push({ x, y: CATCHER_Y - 0.06, text, color, age: 0 });
}

function catchDrop(round: RoundState, drop: Drop, events: GameEvent[]): void {
  if (drop.kind === "bomb") {
    round.combo = 0;
    if (round.shields > 0) {
      round.shields -= 1;
      popup(round, drop.x, "Blocked!", "#93c5fd");
      events.push({ kind: "shield" });
      return;
    }
    round.lives -= 1;
    round.shake = 0.35;
    popup(round, drop.x, "−1 life", "#fca5a5");
    events.push({ kind: "bomb" });
    return;
  }
  round.combo += 1;
  round.caught += 1;
  round.bestCombo = Math.max(round.bestCombo, round.combo);
  const times = multiplier(round.combo);
  const points = (drop.kind === "star" ? 50 : 10) * times;
  round.score += points;
  round.coins += drop.kind === "star" ? 5 : 1;
  popup(round, drop.x, times > 1 ? `+${points} ×${times}` : `+${points}`, drop.kind === "star" ? "#d8b4fe" : "#fde68a");
  events.push({ kind: drop.kind });
}

/** Advances the round by dt seconds. */
export function step(round: RoundState, dt: number, controls: Controls, field: Field, random: () => number = Math.random): GameEvent[] {
  const events: GameEvent[] = [];
  if (round.over) return events;
  round.elapsed += dt;
  round.shake = Math.max(0, round.shake - dt);

  const half = catcherWidth(field) / 2;
  if (controls.dir !== 0) round.catcherX += controls.dir * KEY_SPEED * dt;
  else if (controls.targetX !== null) round.catcherX += (controls.targetX - round.catcherX) * Math.min(1, dt * 18);
  round.catcherX = clamp(round.catcherX, half, 1 - half);

  while (round.warmup.length > 0 && (round.warmup[0] ?? 0) <= round.elapsed) {
    round.warmup.shift();
    round.drops.push({ id: round.nextId++, kind: "coin", x: 0.5, y: -0.05, speed: WARMUP_SPEED, phase: 0 });
  }
  if (round.warmup.length === 0) {
    round.spawnIn -= dt;
    if (round.spawnIn <= 0) spawn(round, random);
  }

  const reach = half * field.width;
  const kept: Drop[] = [];
  for (const drop of round.drops) {
    const before = drop.y;
    drop.y += drop.speed * dt;
    const radius = dropRadius(field, drop.kind);
    const crossed = before * field.height < CATCHER_Y * field.height + radius && drop.y * field.height >= CATCHER_Y * field.height - radius;
    if (crossed && Math.abs(drop.x - round.catcherX) * field.width <= reach + radius * 0.6) {
      catchDrop(round, drop, events);
      continue;
    }
    if (drop.y > 1.08) {
      if (drop.kind !== "bomb" && round.combo > 0) {
        round.combo = 0;
        events.push({ kind: "miss" });
      }
      continue;
    }
    kept.push(drop);
  }
  round.drops = kept;

  for (const p of round.popups) {
    p.age += dt;
    p.y -= dt * 0.12;
  }
  round.popups = round.popups.filter((p) => p.age < 0.9);

  if (round.lives <= 0 || round.elapsed >= round.config.seconds) {
    round.over = true;
    round.endReason = round.lives <= 0 ? "lives" : "time";
    events.push({ kind: "end" });
  }
  return events;
}
