"use client";

import { Heart, Pause, Shield, Timer, Trophy } from "lucide-react";
import { type PointerEvent, type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import {
  type Controls,
  multiplier,
  newRound,
  type RoundConfig,
  type RoundResult,
  type RoundState,
  resultOf,
  secondsLeft,
  step,
} from "./engine";
import type { Settings } from "./progress";
import { drawScene } from "./render";
import { playSound } from "./sound";
import { GameButton } from "./ui";

/** A round to play: a new `id` starts a new round. */
export type Play = { id: number; config: RoundConfig };
type Hud = { score: number; seconds: number; lives: number; shields: number; multiplier: number };

const hudOf = (round: RoundState): Hud => ({
  score: round.score,
  seconds: Math.ceil(secondsLeft(round)),
  lives: round.lives,
  shields: round.shields,
  multiplier: multiplier(round.combo),
});
const LEFT = new Set(["ArrowLeft", "a", "A"]);
const RIGHT = new Set(["ArrowRight", "d", "D"]);
const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

/**
 * The play field: a canvas drawn every animation frame while a round runs, the HUD above it, and
 * `children` laid over it (the lobby and the results). In the lobby, the results and a pause the
 * field is drawn once when something changes (its size, the skin, a round starting or ending) and
 * then nothing: a title screen redrawn 60 times a second cost a phone's battery what a round does
 * (and a whole core in headless Chromium). Mouse and finger move the catcher to where they point;
 * arrow keys or A/D move it at a fixed speed. The round pauses when the tab or window loses focus.
 */
export function GameCanvas({
  play,
  settings,
  idle,
  onEnd,
  children,
}: {
  play: Play | null;
  settings: Settings;
  /** What the HUD shows before the first round. */
  idle: Omit<Hud, "score" | "multiplier">;
  onEnd: (result: RoundResult) => void;
  children?: ReactNode;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const roundRef = useRef<RoundState | null>(null);
  const controls = useRef<Controls>({ dir: 0, targetX: null });
  const held = useRef({ left: false, right: false });
  const pausedRef = useRef(false);
  const settingsRef = useRef(settings);
  const onEndRef = useRef(onEnd);
  /** Draws the next frame (and keeps drawing while a round moves); set by the animation loop. */
  const wakeRef = useRef<() => void>(() => {});
  const [played, setHud] = useState<Hud | null>(null);
  const hud: Hud = played ?? { ...idle, score: 0, multiplier: 1 };
  const [paused, setPausedState] = useState(false);
  const [live, setLive] = useState(false);
  const running = useCallback(() => roundRef.current !== null && !roundRef.current.over, []);

  useEffect(() => {
    settingsRef.current = settings;
    onEndRef.current = onEnd;
  });
  // A new skin (or reduced motion) shows on the still field too.
  useEffect(() => {
    if (settings) wakeRef.current();
  }, [settings]);

  const setPaused = useCallback((value: boolean) => {
    pausedRef.current = value;
    setPausedState(value);
    wakeRef.current();
    if (!value) canvasRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!play) return;
    const round = newRound(play.config);
    roundRef.current = round;
    controls.current = { dir: 0, targetX: null };
    pausedRef.current = false;
    setPausedState(false);
    setHud(hudOf(round));
    setLive(true);
    wakeRef.current();
    canvasRef.current?.focus();
    if (settingsRef.current.sound) playSound("start");
  }, [play]);

  // One animation loop for the component's life: steps the round (unless paused) and draws; it
  // asks for the next frame only while the round moves, and `wake` starts it again.
  useEffect(() => {
    let frame = 0;
    let last: number | null = null;
    let shown = "";
    const moving = () => roundRef.current !== null && !roundRef.current.over && !pausedRef.current;
    const tick = (now: number) => {
      frame = moving() ? requestAnimationFrame(tick) : 0;
      // The first frame after a still spell steps nothing: the round does not jump ahead by the pause.
      const dt = last === null ? 0 : Math.min(0.05, (now - last) / 1000);
      last = frame ? now : null;
      const canvas = canvasRef.current;
      const ctx = canvas?.getContext("2d");
      if (!canvas || !ctx) return;
      const rect = canvas.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      const width = Math.round(rect.width * dpr);
      const height = Math.round(rect.height * dpr);
      if (canvas.width !== width || canvas.height !== height) {
        canvas.width = width;
        canvas.height = height;
      }
      const field = { width: rect.width, height: rect.height };
      const round = roundRef.current;
      if (round && !round.over && !pausedRef.current) {
        const events = step(round, dt, controls.current, field);
        if (settingsRef.current.sound) for (const e of events) playSound(e.kind);
        if (round.over) {
          setLive(false);
          onEndRef.current(resultOf(round));
        }
      }
      if (round) {
        const next = hudOf(round);
        const key = JSON.stringify(next);
        if (key !== shown) {
          shown = key;
          setHud(next);
        }
      }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawScene(ctx, {
        field,
        round,
        skin: settingsRef.current.skin,
        time: now / 1000,
        reducedMotion: settingsRef.current.reducedMotion,
      });
    };
    const wake = () => {
      if (!frame) frame = requestAnimationFrame(tick);
    };
    wakeRef.current = wake;
    const resized = new ResizeObserver(wake);
    if (canvasRef.current) resized.observe(canvasRef.current);
    wake();
    return () => {
      cancelAnimationFrame(frame);
      resized.disconnect();
      wakeRef.current = () => {};
    };
  }, []);

  // Keys move the catcher while a round runs (not while the player types in a form).
  useEffect(() => {
    const update = () => {
      const { left, right } = held.current;
      controls.current.dir = left === right ? 0 : left ? -1 : 1;
      if (controls.current.dir !== 0) controls.current.targetX = null;
    };
    const down = (e: KeyboardEvent) => {
      if (!running() || isTyping(e.target)) return;
      if (LEFT.has(e.key)) held.current.left = true;
      else if (RIGHT.has(e.key)) held.current.right = true;
      else if (e.key === "Escape" || e.key === "p" || e.key === "P") setPaused(!pausedRef.current);
      else if (e.key !== " ") return;
      e.preventDefault();
      update();
    };
    const up = (e: KeyboardEvent) => {
      if (LEFT.has(e.key)) held.current.left = false;
      else if (RIGHT.has(e.key)) held.current.right = false;
      else return;
      update();
    };
    const away = () => {
      held.current = { left: false, right: false };
      update();
      if (running()) setPaused(true);
    };
    const hidden = () => document.hidden && away();
    window.addEventListener("keydown", down);
    window.addEventListener("keyup", up);
    window.addEventListener("blur", away);
    document.addEventListener("visibilitychange", hidden);
    return () => {
      window.removeEventListener("keydown", down);
      window.removeEventListener("keyup", up);
      window.removeEventListener("blur", away);
      document.removeEventListener("visibilitychange", hidden);
    };
  }, [running, setPaused]);

  const point = (e: PointerEvent<HTMLCanvasElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    if (rect.width > 0 && controls.current.dir === 0) controls.current.targetX = (e.clientX - rect.left) / rect.width;
  };

  return (
    <div className="flex flex-col gap-2">
      <div
        className="flex min-h-11 items-center justify-between gap-2 rounded-xl bg-white/[0.06] px-3 py-2 text-sm font-semibold text-white"
        data-testid="hud"
      >
        <span className="flex items-center gap-1.5">
          <Trophy className="size-4 text-amber-300" aria-hidden />
          <span className="sr-only">Score</span>
          <span data-testid="hud-score" className="tabular-nums">
            {hud.score}
          </span>
          {hud.multiplier > 1 && <span className="rounded bg-amber-400/20 px-1.5 text-xs text-amber-200">×{hud.multiplier}</span>}
        </span>
        <span className="flex items-center gap-1.5">
          <span role="img" className="flex items-center gap-1" aria-label={`${hud.lives} lives`}>
            {Array.from({ length: Math.max(0, hud.lives) }, (_, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: identical hearts, only their number matters
              <Heart key={i} className="size-4 fill-rose-500 text-rose-500" aria-hidden />
            ))}
          </span>
          {hud.shields > 0 && <Shield className="size-4 fill-sky-400/40 text-sky-300" aria-label="Shield ready" />}
        </span>
        <span className="flex items-center gap-1.5">
          <Timer className="size-4 text-indigo-200" aria-hidden />
          <span className="sr-only">Seconds left</span>
          <span data-testid="hud-time" className="tabular-nums">
            {hud.seconds}s
          </span>
          {live && !paused && (
            <button
              type="button"
              onClick={() => setPaused(true)}
              className="ml-1 rounded p-1 text-indigo-200 hover:bg-white/10 hover:text-white focus:outline-none focus-visible:ring-2 focus-visible:ring-amber-300"
              aria-label="Pause"
            >
              <Pause className="size-4" aria-hidden />
            </button>
          )}
        </span>
      </div>
      <div className="relative mx-auto aspect-[3/4] max-h-[72vh] w-full overflow-hidden rounded-xl border border-white/10 shadow-2xl sm:aspect-[16/10]">
        <canvas
          ref={canvasRef}
          tabIndex={0}
          aria-label="Coin Cascade play field: catch coins and stars, dodge bombs. Move with the arrow keys or A and D, the mouse, or a finger. P pauses."
          className="block size-full touch-none select-none focus:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-amber-300"
          onPointerMove={point}
          onPointerDown={point}
        />
        {paused && live && (
          <div className="absolute inset-0 flex flex-col items-center justify-center gap-3 bg-indigo-950/75 text-white">
            <p className="text-2xl font-bold">Paused</p>
            <GameButton onClick={() => setPaused(false)}>Resume</GameButton>
          </div>
        )}
        {children}
      </div>
    </div>
  );
}
