import { type Progress, SKINS } from "./progress";
import { Panel } from "./ui";

/** Best score, rounds and unlocked catchers, and whether the cloud has them. */
export function ProgressPanel({ progress, version }: { progress: Progress; version: number | null }) {
  return (
    <Panel title="Progress">
      <dl className="grid grid-cols-2 gap-2 text-sm" data-testid="progress">
        <Stat label="Best score" value={progress.bestScore} testId="best-score" />
        <Stat label="Rounds played" value={progress.roundsPlayed} testId="rounds-played" />
      </dl>
      <p className="mt-2 text-xs text-indigo-200">
        Catchers:{" "}
        {SKINS.filter((s) => progress.unlocked.includes(s.id))
          .map((s) => s.name)
          .join(", ")}
        . {version === null ? "Not saved to the cloud yet." : `Saved in the cloud (version ${version}).`}
      </p>
    </Panel>
  );
}

function Stat({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <div className="rounded-lg bg-white/[0.06] p-2">
      <dt className="text-xs text-indigo-200">{label}</dt>
      <dd className="text-lg font-bold tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}
