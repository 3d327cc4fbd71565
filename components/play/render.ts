import { CATCHER_Y, catcherWidth, type Drop, dropRadius, type Field, type RoundState } from "./engine";
import type { SkinId } from "./progress";

/** Draws one frame on a context already scaled to CSS pixels. `time` (seconds) animates idle things. */
export type Scene = { field: Field; round: RoundState | null; skin: SkinId; time: number; reducedMotion: boolean };

const SKINS: Record<SkinId, { body: string; rim: string; glow: string | null }> = {
  classic: { body: "#0ea5e9", rim: "#7dd3fc", glow: null },
  gold: { body: "#f59e0b", rim: "#fde68a", glow: "rgba(251, 191, 36, 0.55)" },
  neon: { body: "#65a30d", rim: "#d9f99d", glow: "rgba(163, 230, 53, 0.6)" },
  ruby: { body: "#e11d48", rim: "#fda4af", glow: "rgba(244, 63, 94, 0.55)" },
};

/** Fixed pseudo-random sky: the same stars every frame and every size. */
const SKY = Array.from({ length: 70 }, (_, i) => {
  const a = Math.sin(i * 127.1) * 43758.5453;
  const b = Math.sin(i * 311.7) * 12543.1234;
  return { x: a - Math.floor(a), y: b - Math.floor(b), r: 0.5 + ((i * 7) % 5) * 0.3, twinkle: i * 0.7 };
});

function background(ctx: CanvasRenderingContext2D, { width, height }: Field, time: number): void {
  const sky = ctx.createLinearGradient(0, 0, 0, height);
  sky.addColorStop(0, "#0b1026");
  sky.addColorStop(0.65, "#1e1b4b");
  sky.addColorStop(1, "#3b1e5a");
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, width, height);
  for (const star of SKY) {
    ctx.globalAlpha = 0.35 + 0.35 * Math.sin(time * 1.5 + star.twinkle) ** 2;
    ctx.fillStyle = "#e0e7ff";
    ctx.beginPath();
    ctx.arc(star.x * width, star.y * height * 0.8, star.r, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  const ground = CATCHER_Y * height + Math.max(14, height * 0.035);
  ctx.fillStyle = "#2e1065";
  ctx.fillRect(0, ground, width, height - ground);
  ctx.fillStyle = "#4c1d95";
  ctx.fillRect(0, ground, width, 2);
}

function catcher(ctx: CanvasRenderingContext2D, field: Field, x: number, skin: SkinId, shields: number, time: number): void {
  const style = SKINS[skin];
  const w = catcherWidth(field) * field.width;
  const h = Math.max(12, field.height * 0.035);
  const cx = x * field.width;
  const top = CATCHER_Y * field.height - h * 0.35;
  ctx.save();
  if (style.glow) {
    ctx.shadowColor = style.glow;
    ctx.shadowBlur = 18;
  }
  ctx.fillStyle = style.body;
  ctx.beginPath();
  ctx.moveTo(cx - w / 2, top);
  ctx.lineTo(cx + w / 2, top);
  ctx.lineTo(cx + w / 2 - h * 0.6, top + h);
  ctx.lineTo(cx - w / 2 + h * 0.6, top + h);
  ctx.closePath();
  ctx.fill();
  ctx.restore();
  ctx.fillStyle = style.rim;
  ctx.beginPath();
  ctx.roundRect(cx - w / 2 - 3, top - 4, w + 6, 6, 3);
  ctx.fill();
  if (shields > 0) {
    ctx.strokeStyle = `rgba(147, 197, 253, ${0.55 + 0.25 * Math.sin(time * 6)})`;
    ctx.lineWidth = 3;
    ctx.beginPath();
    ctx.ellipse(cx, top, w * 0.62, h * 2.2, 0, Math.PI, 0);
    ctx.stroke();
  }
}

function coin(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, spin: number): void {
  const squash = Math.max(0.25, Math.abs(Math.cos(spin)));
  ctx.fillStyle = "#b45309";
  ctx.beginPath();
  ctx.ellipse(x, y, r * squash, r, 0, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#fbbf24";
  ctx.beginPath();
  ctx.ellipse(x, y, r * squash * 0.82, r * 0.82, 0, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#fef3c7";
  ctx.beginPath();
  ctx.ellipse(x - r * 0.25 * squash, y - r * 0.3, r * 0.18 * squash, r * 0.28, 0, 0, Math.PI * 2);
  ctx.fill();
}

/** A glowing polygon of `points` spikes (2 × points vertices alternating `outer` and `inner` radius). */
function spikes(
  ctx: CanvasRenderingContext2D,
  x: number,
  y: number,
  shape: { points: number; outer: number; inner: number; rotation: number },
  paint: { fill: string; glow: string; blur: number },
): void {
  ctx.save();
  ctx.shadowColor = paint.glow;
  ctx.shadowBlur = paint.blur;
  ctx.fillStyle = paint.fill;
  ctx.beginPath();
  for (let i = 0; i < shape.points * 2; i++) {
    const radius = i % 2 === 0 ? shape.outer : shape.inner;
    const angle = (Math.PI / shape.points) * i + shape.rotation;
    ctx.lineTo(x + Math.cos(angle) * radius, y + Math.sin(angle) * radius);
  }
  ctx.closePath();
  ctx.fill();
  ctx.restore();
}

function star(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, turn: number): void {
  spikes(
    ctx,
    x,
    y,
    { points: 5, outer: r * 1.25, inner: r * 0.55, rotation: turn - Math.PI / 2 },
    { fill: "#c084fc", glow: "rgba(216, 180, 254, 0.9)", blur: 16 },
  );
}

function bomb(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, time: number): void {
  // Red-hot and spiky, so it never reads as a coin, even at a glance on a small screen.
  spikes(
    ctx,
    x,
    y,
    { points: 8, outer: r * 1.25, inner: r * 0.9, rotation: time * 1.5 },
    { fill: "#dc2626", glow: "rgba(248, 113, 113, 0.95)", blur: 18 },
  );
  ctx.fillStyle = "#1f2937";
  ctx.beginPath();
  ctx.arc(x, y, r * 0.82, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "rgba(255, 255, 255, 0.35)";
  ctx.beginPath();
  ctx.arc(x - r * 0.28, y - r * 0.3, r * 0.22, 0, Math.PI * 2);
  ctx.fill();
  ctx.strokeStyle = "#d6d3d1";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(x + r * 0.3, y - r * 0.7);
  ctx.quadraticCurveTo(x + r * 0.9, y - r * 1.5, x + r * 0.3, y - r * 1.8);
  ctx.stroke();
  ctx.fillStyle = Math.sin(time * 30) > 0 ? "#fde047" : "#f97316";
  ctx.beginPath();
  ctx.arc(x + r * 0.3, y - r * 1.8, r * 0.25, 0, Math.PI * 2);
  ctx.fill();
}

function drop(ctx: CanvasRenderingContext2D, field: Field, d: Drop, time: number): void {
  const x = d.x * field.width;
  const y = d.y * field.height;
  const r = dropRadius(field, d.kind);
  if (d.kind === "coin") coin(ctx, x, y, r, time * 5 + d.phase);
  else if (d.kind === "star") star(ctx, x, y, r, time * 2 + d.phase);
  else bomb(ctx, x, y, r, time + d.phase);
}

export function drawScene(ctx: CanvasRenderingContext2D, scene: Scene): void {
  const { field, round, time } = scene;
  ctx.save();
  if (round && round.shake > 0 && !scene.reducedMotion) {
    const amount = round.shake * 18;
    ctx.translate((Math.random() - 0.5) * amount, (Math.random() - 0.5) * amount);
  }
  background(ctx, field, time);
  if (round) {
    for (const d of round.drops) drop(ctx, field, d, time);
    catcher(ctx, field, round.catcherX, scene.skin, round.shields, time);
    const size = Math.max(14, Math.min(22, field.width * 0.03));
    ctx.font = `700 ${size}px ui-sans-serif, system-ui, sans-serif`;
    ctx.textAlign = "center";
    for (const p of round.popups) {
      ctx.globalAlpha = 1 - p.age / 0.9;
      ctx.fillStyle = p.color;
      ctx.fillText(p.text, p.x * field.width, p.y * field.height);
    }
    ctx.globalAlpha = 1;
  } else {
    catcher(ctx, field, 0.5, scene.skin, 0, time);
  }
  ctx.restore();
}
