import type { GameEvent } from "./engine";

/**
 * Tiny synthesized effects (no audio files to ship). The AudioContext is made on the first
 * sound after a click or key press, as browsers require.
 */
let audio: AudioContext | null = null;

function tone(frequency: number, seconds: number, type: OscillatorType, volume: number, at = 0): void {
  audio ??= new AudioContext();
  const start = audio.currentTime + at;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, start);
  gain.gain.setValueAtTime(volume, start);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + seconds);
  osc.connect(gain).connect(audio.destination);
  osc.start(start);
  osc.stop(start + seconds);
}

export function playSound(event: GameEvent["kind"] | "start" | "buy"): void {
  try {
    if (event === "coin") tone(880, 0.09, "triangle", 0.08);
    else if (event === "star") [988, 1319, 1568].forEach((f, i) => void tone(f, 0.12, "triangle", 0.07, i * 0.06));
    else if (event === "bomb") tone(110, 0.35, "sawtooth", 0.12);
    else if (event === "shield") tone(440, 0.2, "square", 0.05);
    else if (event === "miss") tone(220, 0.08, "sine", 0.04);
    else if (event === "start" || event === "buy") [523, 659, 784].forEach((f, i) => void tone(f, 0.1, "triangle", 0.06, i * 0.07));
    else if (event === "end") [784, 659, 523, 392].forEach((f, i) => void tone(f, 0.16, "triangle", 0.07, i * 0.1));
  } catch {
    // No audio on this device: the game is still playable.
  }
}
