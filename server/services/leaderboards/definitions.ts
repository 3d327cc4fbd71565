import { onBroadcast } from "../../cluster";
import { isUniqueViolation, pool, prisma } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { type Leaderboard as LeaderboardRow, Prisma } from "../../generated/prisma/client";
import { invalidateEverywhere } from "../../invalidate";
import type { Rewards } from "./board-schemas";
import { parseSchedule, type Schedule } from "./periods";
import { type CreateLeaderboard, type LeaderboardDto, type UpdateLeaderboard, ZRewards } from "./schemas";

/**
 * Leaderboard definitions, managed by operators. Read on every submit and page, so cached per
 * process for DEFINITION_CACHE_TTL_MS; a change made here applies at once in every worker of this
 * instance (invalidateLeaderboard) and within that time on every other instance (a reset-now too: submits reaching another instance in that window
 * still land in the period before the reset).
 */
export type Definition = LeaderboardDto & {
  projectId: string;
  epoch: number;
  schedule: Schedule | null;
  /** Every accepted score is a leaderboard.score_submitted webhook event (opt-in: frequent). */
  scoreEvents: boolean;
};

const cache = new Map<string, { value: Definition | null; expiresAt: number }>();
const cacheKey = (projectId: string, id: string) => `${projectId}\u0000${id}`;

function toDefinition(row: LeaderboardRow): Definition {
  return {
    projectId: row.projectId,
    id: row.id,
    name: row.name,
    sortOrder: row.sortOrder === "ASC" ? "asc" : "desc",
    operator: row.operator.toLowerCase() as Definition["operator"],
    minScore: row.minScore,
    maxScore: row.maxScore,
    resetSchedule: row.resetSchedule,
    schedule: row.resetSchedule ? parseSchedule(row.resetSchedule) : null,
    clientWritable: row.clientWritable,
    scoreEvents: row.scoreEvents,
    // Validated by ZRewards when saved.
    rewards: (row.rewards ?? []) as Rewards,
    startsAt: row.startsAt ? row.startsAt.toISOString() : null,
    endsAt: row.endsAt ? row.endsAt.toISOString() : null,
    epoch: row.epoch,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toDto(d: Definition): LeaderboardDto {
  const { projectId: _p, epoch: _e, schedule: _s, ...dto } = d;
  return dto;
}

/** The definition, or LEADERBOARD_NOT_FOUND (also for another project's board). */
export async function loadLeaderboard(projectId: string, id: string): Promise<Definition> {
  const key = cacheKey(projectId, id);
  const now = Date.now();
  const hit = cache.get(key);
  let value: Definition | null;
  if (hit && hit.expiresAt > now) {
    value = hit.value;
  } else {
    const row = await prisma().leaderboard.findUnique({ where: { projectId_id: { projectId, id } } });
    value = row ? toDefinition(row) : null;
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { value, expiresAt: now + env().DEFINITION_CACHE_TTL_MS });
  }
  if (!value) throw new AppError("LEADERBOARD_NOT_FOUND");
  return value;
}

/** Drops this process's cached definition. */
export function forgetLeaderboard(projectId: string, id: string): void {
  cache.delete(cacheKey(projectId, id));
}

const FORGET_TOPIC = "leaderboards:forget";
type Forget = { projectId: string; id: string };
/** After a change has ended (committed or not): drops the definition in every worker of this instance. */
export function invalidateLeaderboard(projectId: string, id: string): Promise<void> {
  return invalidateEverywhere(FORGET_TOPIC, { projectId, id }, () => forgetLeaderboard(projectId, id));
}
onBroadcast(FORGET_TOPIC, (payload) => forgetLeaderboard((payload as Forget).projectId, (payload as Forget).id));

export async function listLeaderboards(o: { projectId: string }): Promise<LeaderboardDto[]> {
  const rows = await prisma().leaderboard.findMany({ where: { projectId: o.projectId }, orderBy: { id: "asc" } });
  return rows.map((r) => toDto(toDefinition(r)));
}

/**
 * Rewards must name the project's currencies and items (one query for both; inside a transaction it
 * sees that transaction's definitions, so a config import may create a currency and a board
 * rewarding it together). null or []: none, stored as SQL NULL.
 */
async function rewardsToStore(
  projectId: string,
  rewards: Rewards | null | undefined,
): Promise<Prisma.InputJsonValue | typeof Prisma.DbNull> {
  if (!rewards || rewards.length === 0) return Prisma.DbNull;
  const wanted = (side: "currencies" | "items") => [...new Set(rewards.flatMap((t) => t[side].map((l) => l.id)))];
  // One statement: two sent at once would share a transaction's one connection (server/db.ts refuses that).
  const { rows } = await pool().query<{ side: "currencies" | "items"; id: string }>(
    `SELECT 'currencies' AS side, id FROM currencies WHERE project_id = $1 AND id = ANY($2::text[])
     UNION ALL
     SELECT 'items' AS side, id FROM items WHERE project_id = $1 AND id = ANY($3::text[])`,
    [projectId, wanted("currencies"), wanted("items")],
  );
  const known = { currencies: new Set<string>(), items: new Set<string>() };
  for (const row of rows) known[row.side].add(row.id);
  const issues: Array<{ path: string; message: string }> = [];
  rewards.forEach((tier, i) => {
    for (const side of ["currencies", "items"] as const) {
      tier[side].forEach((line, j) => {
        if (!known[side].has(line.id))
          issues.push({
            path: `rewards.${i}.${side}.${j}.id`,
            message: `No ${side === "currencies" ? "currency" : "item"} "${line.id}" in this project.`,
          });
      });
    }
  });
  if (issues.length) throw new AppError("VALIDATION_ERROR", { message: issues[0]?.message, details: { issues } });
  return rewards as Prisma.InputJsonValue;
}

const instant = (text: string | null | undefined): Date | null => (text ? new Date(text) : null);

/** A limited-time board's window must end after it starts (checked on the merged values of an update). */
function assertWindowInOrder(startsAt: string | null, endsAt: string | null): void {
  if (startsAt && endsAt && Date.parse(endsAt) <= Date.parse(startsAt)) {
    throw new AppError("VALIDATION_ERROR", {
      message: "The end (endsAt) must be after the start (startsAt).",
      details: { issues: [{ path: "endsAt", message: "The end (endsAt) must be after the start (startsAt)." }] },
    });
  }
}

/**
 * Refuses a score outside a limited-time board's window with a sentence naming the window; reads
 * are not checked (a finished board stays readable).
 */
export function assertOpen(board: Pick<LeaderboardDto, "startsAt" | "endsAt">, now: Date): void {
  const starts = board.startsAt ? new Date(board.startsAt) : null;
  const ends = board.endsAt ? new Date(board.endsAt) : null;
  const early = starts !== null && now.getTime() < starts.getTime();
  const late = ends !== null && now.getTime() >= ends.getTime();
  if (!early && !late) return;
  const window =
    starts && ends
      ? `from ${starts.toISOString()} until ${ends.toISOString()}`
      : starts
        ? `from ${starts.toISOString()}`
        : `until ${ends?.toISOString()}`;
  throw new AppError("LEADERBOARD_NOT_OPEN", {
    message: `${early ? "This leaderboard has not started" : "This leaderboard has ended"}: it accepts scores ${window} (UTC).`,
    details: { startsAt: board.startsAt, endsAt: board.endsAt, now: now.toISOString() },
  });
}

export async function createLeaderboard(o: { projectId: string; input: CreateLeaderboard }): Promise<LeaderboardDto> {
  const { input } = o;
  assertWindowInOrder(input.startsAt ?? null, input.endsAt ?? null);
  const rewards = await rewardsToStore(o.projectId, ZRewards.nullable().optional().parse(input.rewards));
  try {
    const row = await prisma().leaderboard.create({
      data: {
        projectId: o.projectId,
        id: input.id,
        name: input.name.trim(),
        sortOrder: input.sortOrder === "asc" ? "ASC" : "DESC",
        operator: input.operator.toUpperCase() as LeaderboardRow["operator"],
        minScore: input.minScore ?? null,
        maxScore: input.maxScore ?? null,
        resetSchedule: input.resetSchedule ?? null,
        clientWritable: input.clientWritable ?? true,
        scoreEvents: input.scoreEvents ?? false,
        rewards,
        startsAt: instant(input.startsAt),
        endsAt: instant(input.endsAt),
      },
    });
    forgetLeaderboard(o.projectId, input.id);
    return toDto(toDefinition(row));
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("ALREADY_EXISTS", { message: `A leaderboard with id "${input.id}" exists.` });
    throw error;
  }
}

/** Name, bounds, schedule, writability, score events, rewards and window; sort order and operator are fixed. */
export async function updateLeaderboard(o: { projectId: string; id: string; input: UpdateLeaderboard }): Promise<LeaderboardDto> {
  const current = await loadLeaderboard(o.projectId, o.id);
  const minScore = o.input.minScore === undefined ? current.minScore : o.input.minScore;
  const maxScore = o.input.maxScore === undefined ? current.maxScore : o.input.maxScore;
  if (minScore !== null && maxScore !== null && minScore > maxScore) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: [{ path: "maxScore", message: "maxScore must not be below minScore." }] },
    });
  }
  const startsAt = o.input.startsAt === undefined ? current.startsAt : o.input.startsAt;
  const endsAt = o.input.endsAt === undefined ? current.endsAt : o.input.endsAt;
  assertWindowInOrder(startsAt, endsAt);
  const rewards = o.input.rewards === undefined ? undefined : await rewardsToStore(o.projectId, ZRewards.nullable().parse(o.input.rewards));
  const { count } = await prisma().leaderboard.updateMany({
    where: { projectId: o.projectId, id: o.id },
    data: {
      ...(o.input.name !== undefined ? { name: o.input.name.trim() } : {}),
      ...(o.input.scoreEvents !== undefined ? { scoreEvents: o.input.scoreEvents } : {}),
      ...(rewards !== undefined ? { rewards } : {}),
      ...(o.input.startsAt !== undefined ? { startsAt: instant(o.input.startsAt) } : {}),
      ...(o.input.endsAt !== undefined ? { endsAt: instant(o.input.endsAt) } : {}),
      minScore,
      maxScore,
      ...(o.input.resetSchedule !== undefined ? { resetSchedule: o.input.resetSchedule } : {}),
      ...(o.input.clientWritable !== undefined ? { clientWritable: o.input.clientWritable } : {}),
      updatedAt: new Date(),
    },
  });
  forgetLeaderboard(o.projectId, o.id);
  if (count === 0) throw new AppError("LEADERBOARD_NOT_FOUND");
  return toDto(await loadLeaderboard(o.projectId, o.id));
}

/** Deletes the board with every period and entry. */
export async function deleteLeaderboard(o: { projectId: string; id: string }): Promise<void> {
  const { count } = await prisma().leaderboard.deleteMany({ where: { projectId: o.projectId, id: o.id } });
  forgetLeaderboard(o.projectId, o.id);
  if (count === 0) throw new AppError("LEADERBOARD_NOT_FOUND");
}

/** Archives the current period now: the next submit starts an empty one. */
export async function resetLeaderboard(o: { projectId: string; id: string }): Promise<void> {
  const { count } = await prisma().leaderboard.updateMany({
    where: { projectId: o.projectId, id: o.id },
    data: { epoch: { increment: 1 }, updatedAt: new Date() },
  });
  forgetLeaderboard(o.projectId, o.id);
  if (count === 0) throw new AppError("LEADERBOARD_NOT_FOUND");
}
