import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { type OperatorContext, projectRole, runCommand, system, viewerRead } from "../command";
import { applyImportAs, dryRunImportAs, exportConfig, type ImportOnBehalf } from "../config";
import type { ConfigDocument } from "../config/schemas";
import { invalidateEconomy } from "../economy/definitions";
import { invalidateLeaderboard } from "../leaderboards/definitions";
import { KIND_LABEL, type ScheduledChangeDto, type ScheduleInput, type ScheduleKind, type ScheduleStatus, ZPatchOf } from "./schemas";

/**
 * Scheduled changes (a weekend sale): a patch of one definition of the config-as-code document,
 * applied at `startsAt` and, with `endsAt`, reverted then. Applying and reverting go through the
 * config import (`applyImportAs`), so its validation, referential checks, lock and audit are
 * theirs; the audit row names the scheduled change (`schedule.apply`, `schedule.revert`, target
 * its id). What is reverted is what the change replaced, field by field, captured when it was
 * applied; a field someone changed in between (no longer the scheduled value) is left as they
 * set it and named in the change's `error`.
 */

type Row = {
  id: string;
  project_id: string;
  name: string;
  kind: ScheduleKind;
  target: string;
  patch: Record<string, unknown>;
  starts_at: Date;
  ends_at: Date | null;
  status: ScheduleStatus;
  before: Record<string, unknown> | null;
  applied_at: Date | null;
  reverted_at: Date | null;
  error: string | null;
  created_by: string | null;
  created_at: Date;
};

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function toDto(r: Row): ScheduledChangeDto {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    target: r.target,
    patch: r.patch,
    startsAt: r.starts_at.toISOString(),
    endsAt: iso(r.ends_at),
    status: r.status,
    before: r.before,
    appliedAt: iso(r.applied_at),
    revertedAt: iso(r.reverted_at),
    error: r.error,
    createdBy: r.created_by,
    createdAt: r.created_at.toISOString(),
  };
}

const invalid = (path: string, message: string) => new AppError("VALIDATION_ERROR", { message, details: { issues: [{ path, message }] } });

/** JSON with sorted keys: a line `{amount, currencyId}` equals `{currencyId, amount}`. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

type Entry = { id: string } & Record<string, unknown>;
const entryOf = (doc: ConfigDocument, kind: ScheduleKind, id: string) => (doc[kind] as Entry[]).find((e) => e.id === id);

/** The document with `fields` set on one definition. */
function patched(doc: ConfigDocument, kind: ScheduleKind, id: string, fields: Record<string, unknown>): ConfigDocument {
  const { $schema: _schema, ...rest } = doc;
  return { ...rest, [kind]: (doc[kind] as Entry[]).map((e) => (e.id === id ? { ...e, ...fields } : e)) } as ConfigDocument;
}

/** The same lock the import takes: the "before" read here and the import's diff see one state. */
const lockConfig = (projectId: string) =>
  pool().query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`config-import:${projectId}`]);

/** Schedules a change (admins): the patch is checked now against today's configuration, as the import would check it. */
export async function scheduleChangeAs(
  ctx: OperatorContext,
  o: { projectId: string } & ScheduleInput,
  now: () => number = Date.now,
): Promise<ScheduledChangeDto> {
  const { projectId } = o;
  return runCommand(ctx, {
    projectId,
    minimum: "ADMIN",
    action: "schedule.create",
    target: (r) => r.id,
    after: (r) => r,
    run: async (actor) => {
      const startsAt = Date.parse(o.startsAt);
      const endsAt = o.endsAt ? Date.parse(o.endsAt) : null;
      if (startsAt <= now()) throw invalid("startsAt", "The start must be in the future.");
      if (endsAt !== null && endsAt <= startsAt) throw invalid("endsAt", "The end must be after the start.");
      const parsed = ZPatchOf[o.kind].safeParse(o.patch);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw invalid(`patch.${issue?.path.join(".") ?? ""}`, `patch.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
      }
      const patch = parsed.data as Record<string, unknown>;
      if (Object.keys(patch).length === 0) throw invalid("patch", "The patch changes no field.");
      const current = await exportConfig({ projectId });
      if (!entryOf(current, o.kind, o.target)) throw invalid("target", `No ${KIND_LABEL[o.kind]} "${o.target}".`);
      const plan = await dryRunImportAs(ctx, { projectId, document: patched(current, o.kind, o.target, patch) });
      const [refusal] = plan.refusals;
      if (refusal) throw invalid("patch", `${refusal.kind} "${refusal.id}": ${refusal.message}`);
      const { rows } = await pool().query<Row>(
        `INSERT INTO scheduled_changes (id, project_id, name, kind, target, patch, starts_at, ends_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) RETURNING *`,
        [
          uuidv7(),
          projectId,
          o.name,
          o.kind,
          o.target,
          JSON.stringify(patch),
          new Date(startsAt),
          endsAt === null ? null : new Date(endsAt),
          actor.operatorId,
        ],
      );
      const [row] = rows;
      if (!row) throw new Error("INSERT … RETURNING gave no row");
      return toDto(row);
    },
  });
}

/** The project's scheduled changes, by start (the calendar splits upcoming, running and past). */
export const listScheduledChangesAs = viewerRead(async (o: { projectId: string }): Promise<ScheduledChangeDto[]> => {
  const { rows } = await pool().query<Row>("SELECT * FROM scheduled_changes WHERE project_id = $1 ORDER BY starts_at, id LIMIT 1000", [
    o.projectId,
  ]);
  return rows.map(toDto);
});

type Outcome = Pick<Row, "status" | "before" | "error">;
const note = (row: Row) => ({ scheduledChange: { id: row.id, name: row.name, kind: row.kind, target: row.target } });

/** Applies the patch (in the caller's transaction, the row locked), capturing what it replaces. */
async function applyChange(row: Row, onBehalf: Pick<ImportOnBehalf, "authorization">): Promise<Outcome> {
  await lockConfig(row.project_id);
  const current = await exportConfig({ projectId: row.project_id });
  const entry = entryOf(current, row.kind, row.target);
  if (!entry)
    return { status: "failed", before: null, error: `The ${KIND_LABEL[row.kind]} "${row.target}" no longer exists; nothing was applied.` };
  const before = Object.fromEntries(Object.keys(row.patch).map((field) => [field, entry[field] ?? null]));
  await applyImportAs(null, {
    projectId: row.project_id,
    document: patched(current, row.kind, row.target, row.patch),
    onBehalf: { ...onBehalf, action: "schedule.apply", target: row.id, note: note(row) },
  });
  return { status: row.ends_at ? "running" : "done", before, error: null };
}

/** Puts back what the change replaced, only in fields that still hold the scheduled value. */
async function revertChange(row: Row, onBehalf: Pick<ImportOnBehalf, "authorization">): Promise<Outcome> {
  await lockConfig(row.project_id);
  const current = await exportConfig({ projectId: row.project_id });
  const entry = entryOf(current, row.kind, row.target);
  if (!entry)
    return {
      status: "done",
      before: row.before,
      error: `The ${KIND_LABEL[row.kind]} "${row.target}" no longer exists; nothing to revert.`,
    };
  const restore: Record<string, unknown> = {};
  const kept: string[] = [];
  for (const [field, value] of Object.entries(row.patch)) {
    if (canonical(entry[field]) === canonical(value)) restore[field] = row.before?.[field] ?? null;
    else kept.push(field);
  }
  await applyImportAs(null, {
    projectId: row.project_id,
    document: patched(current, row.kind, row.target, restore),
    onBehalf: { ...onBehalf, action: "schedule.revert", target: row.id, note: { ...note(row), kept } },
  });
  const error = kept.length ? `Not reverted (changed by someone after the start): ${kept.join(", ")}.` : null;
  return { status: "done", before: row.before, error };
}

async function record(row: Row, outcome: Outcome, step: "apply" | "revert" | "cancel"): Promise<void> {
  await pool().query(
    `UPDATE scheduled_changes SET status = $2, before = $3::jsonb, error = $4,
            applied_at = CASE WHEN $5 = 'apply' THEN now() ELSE applied_at END,
            reverted_at = CASE WHEN $5 <> 'apply' AND $2 <> 'failed' THEN now() ELSE reverted_at END
      WHERE id = $1`,
    [row.id, outcome.status, outcome.before === null ? null : JSON.stringify(outcome.before), outcome.error, step],
  );
}

const invalidateFor = async (row: Pick<Row, "project_id" | "kind" | "target">) => {
  await invalidateEconomy(row.project_id);
  if (row.kind === "leaderboards") await invalidateLeaderboard(row.project_id, row.target);
};

/**
 * Cancels a change (admins): one not started yet never applies; a running one is reverted now
 * (audited as `schedule.revert` beside the `schedule.cancel` row). Waits for a scheduler step in
 * progress on it, then sees its result.
 */
export async function cancelScheduledChangeAs(ctx: OperatorContext, o: { projectId: string; id: string }): Promise<ScheduledChangeDto> {
  let touched: Row | undefined;
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "schedule.cancel",
    target: o.id,
    after: (r) => r,
    run: async () => {
      const { rows } = await pool().query<Row>("SELECT * FROM scheduled_changes WHERE project_id = $1 AND id::text = $2 FOR UPDATE", [
        o.projectId,
        o.id,
      ]);
      const [row] = rows;
      if (!row) throw new AppError("NOT_FOUND", { message: "Scheduled change not found." });
      if (row.status === "scheduled") {
        await record(row, { status: "cancelled", before: null, error: null }, "cancel");
      } else if (row.status === "running") {
        touched = row;
        const outcome = await revertChange(row, { authorization: projectRole(ctx, o.projectId, "ADMIN") });
        await record(row, { ...outcome, status: "cancelled" }, "cancel");
      } else {
        throw invalid("id", `This change has already ended (${row.status}).`);
      }
      const { rows: after } = await pool().query<Row>("SELECT * FROM scheduled_changes WHERE id = $1", [row.id]);
      if (!after[0]) throw new Error("the scheduled change vanished under its lock");
      return toDto(after[0]);
    },
    invalidate: async () => {
      if (touched) await invalidateFor(touched);
    },
  });
}

const DUE = `SELECT * FROM scheduled_changes
  WHERE (status = 'scheduled' AND starts_at <= now()) OR (status = 'running' AND ends_at <= now())
  ORDER BY CASE status WHEN 'scheduled' THEN starts_at ELSE ends_at END
  LIMIT 1 FOR UPDATE SKIP LOCKED`;

/**
 * One due step (an apply or a revert) of any project, in one transaction with its audit row;
 * false when none is due. The row is claimed with FOR UPDATE SKIP LOCKED and its status moves
 * on in the same transaction, so however many processes run this at once, each step runs once.
 */
export async function runOneDueStep(): Promise<boolean> {
  const done = await transaction(async (client) => {
    const { rows } = await client.query<Row>(DUE);
    const [row] = rows;
    if (!row) return null;
    const authorization = system(row.project_id, `scheduled-change:${row.id}`);
    const step = row.status === "scheduled" ? "apply" : "revert";
    if (step === "apply" && row.ends_at && row.ends_at.getTime() <= Date.now()) {
      await record(
        row,
        { status: "failed", before: null, error: "The window had ended before any scheduler ran; nothing was applied." },
        "apply",
      );
      return row;
    }
    try {
      const outcome = step === "apply" ? await applyChange(row, { authorization }) : await revertChange(row, { authorization });
      await record(row, outcome, step);
    } catch (error) {
      // The import rolled back its savepoint: nothing of the step is left; the change is marked failed.
      const message = error instanceof AppError ? error.message : "The change could not be applied.";
      await record(row, { status: "failed", before: row.before, error: message }, step);
      await runCommand(null, {
        authorization,
        action: `schedule.${step}.failed`,
        target: row.id,
        after: () => ({ ...note(row), error: message }),
        run: async () => true,
      });
    }
    return row;
  });
  if (!done) return false;
  await invalidateFor(done);
  return true;
}

/** Every due step, one transaction each (at most `limit` per call, so a tick ends). */
export async function runDueScheduledChanges(limit = 100): Promise<number> {
  let n = 0;
  while (n < limit && (await runOneDueStep())) n += 1;
  return n;
}
