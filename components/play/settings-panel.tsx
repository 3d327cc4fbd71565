"use client";

import { useId } from "react";
import type { Difficulty } from "./engine";
import { type Progress, type Settings, SKINS } from "./progress";
import { Notice, Panel, type Status } from "./ui";

const DIFFICULTIES: { id: Difficulty; name: string }[] = [
  { id: "easy", name: "Easy" },
  { id: "normal", name: "Normal" },
  { id: "hard", name: "Hard" },
];

function Toggle({
  label,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  disabled: boolean;
}) {
  const id = useId();
  return (
    <div className="flex items-center justify-between gap-3">
      <label htmlFor={id} className="text-sm text-white">
        {label}
      </label>
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        className="size-5 accent-amber-400"
      />
    </div>
  );
}

/** Settings live in player data (`settings`): they follow the player to any device. Changing one saves it. */
export function SettingsPanel({
  settings,
  progress,
  disabled,
  status,
  onChange,
}: {
  settings: Settings;
  progress: Progress;
  disabled: boolean;
  status: Status;
  onChange: (next: Settings) => void;
}) {
  const skinId = useId();
  return (
    <Panel title="Settings">
      <div className="space-y-3">
        <Toggle label="Sound" checked={settings.sound} disabled={disabled} onChange={(sound) => onChange({ ...settings, sound })} />
        <Toggle
          label="Reduce motion (no screen shake)"
          checked={settings.reducedMotion}
          disabled={disabled}
          onChange={(reducedMotion) => onChange({ ...settings, reducedMotion })}
        />
        <fieldset disabled={disabled}>
          <legend className="mb-1 text-sm text-white">Difficulty</legend>
          <div className="flex gap-2">
            {DIFFICULTIES.map((d) => (
              <label
                key={d.id}
                className="flex flex-1 cursor-pointer items-center justify-center gap-1.5 rounded-lg border border-white/20 px-2 py-1.5 text-sm text-white has-[:checked]:border-amber-300 has-[:checked]:bg-amber-400/15"
              >
                <input
                  type="radio"
                  name="difficulty"
                  value={d.id}
                  checked={settings.difficulty === d.id}
                  onChange={() => onChange({ ...settings, difficulty: d.id })}
                  className="accent-amber-400"
                />
                {d.name}
              </label>
            ))}
          </div>
        </fieldset>
        <div>
          <label htmlFor={skinId} className="mb-1 block text-sm text-white">
            Catcher
          </label>
          <select
            id={skinId}
            value={settings.skin}
            disabled={disabled}
            onChange={(e) => onChange({ ...settings, skin: e.target.value as Settings["skin"] })}
            className="w-full rounded-lg border border-white/20 bg-indigo-950 px-3 py-2 text-sm text-white"
          >
            {SKINS.map((s) => {
              const open = progress.unlocked.includes(s.id);
              return (
                <option key={s.id} value={s.id} disabled={!open}>
                  {open ? s.name : `${s.name} (locked: ${s.how.toLowerCase()})`}
                </option>
              );
            })}
          </select>
        </div>
      </div>
      {status && (
        <Notice tone={status.tone} testId="settings-status">
          {status.text}
        </Notice>
      )}
    </Panel>
  );
}
