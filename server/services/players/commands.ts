import { prisma } from "../../db";
import { AppError } from "../../errors";
import { sendResetCodeNow, sendVerificationCode } from "../auth/account-email";
import { revokeSessions } from "../auth/sessions";
import { authorize, type OperatorContext, runCommand } from "../command";
import type { JsonValue } from "../json-value";
import { type BoardPeriod, syncRankIndex } from "../leaderboards/moderation";
import { getPlayerData, putPlayerData } from "../player-data";
import { deletePlayer } from "./admin";
import { banPlayer, unbanPlayer } from "./bans";
import { exportPlayerData } from "./lifecycle";

/**
 * What operators do to one player (admins and owners), through runCommand: the role check, one
 * transaction with the "before" read, the change and its audit row. A player of another project
 * is PLAYER_NOT_FOUND: every service below filters by the project.
 */
type PlayerRef = { projectId: string; playerId: string };

/**
 * Signs the player out everywhere and refuses sign-in (until `until`, or for good); hides the
 * player's leaderboard entries, or with `removeEntries` deletes them (audited with the counts).
 * `batch`: the bulk action this ban is part of (recorded in the audit row, see ./bulk.ts).
 */
export async function banPlayerAs(
  ctx: OperatorContext,
  o: PlayerRef & { reason: string; until?: string | null; batch?: string; removeEntries?: boolean },
) {
  let boards: BoardPeriod[] = [];
  const ban = await runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.ban",
    target: o.playerId,
    run: async () => {
      const until = o.until ? new Date(o.until) : null;
      const done = await banPlayer({
        projectId: o.projectId,
        playerId: o.playerId,
        reason: o.reason,
        until,
        removeEntries: o.removeEntries,
      });
      boards = done.boards;
      return done;
    },
    after: (ban) => ({ reason: ban.banReason, until: ban.bannedUntil, entries: ban.entries, ...(o.batch ? { batch: o.batch } : {}) }),
    // The rank index follows what committed (moderation.ts), before the answer.
    invalidate: () => syncRankIndex(o.projectId, [o.playerId], boards),
  });
  const { boards: _boards, ...dto } = ban;
  return dto;
}

/** Sets (or with null clears) the player's display name, with the API's rules (ZDisplayName); audited with before and after. */
export function setDisplayNameAs(ctx: OperatorContext, o: PlayerRef & { displayName: string | null }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.display-name",
    target: o.playerId,
    before: async () => {
      const row = await prisma().player.findFirst({ where: { id: o.playerId, projectId: o.projectId }, select: { displayName: true } });
      if (!row) throw new AppError("PLAYER_NOT_FOUND");
      return { displayName: row.displayName };
    },
    run: async () => {
      const { count } = await prisma().player.updateMany({
        where: { id: o.playerId, projectId: o.projectId },
        data: { displayName: o.displayName },
      });
      if (count === 0) throw new AppError("PLAYER_NOT_FOUND");
      return { displayName: o.displayName };
    },
    after: (result) => result,
  });
}

export async function unbanPlayerAs(ctx: OperatorContext, o: PlayerRef) {
  let boards: BoardPeriod[] = [];
  const unban = await runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.unban",
    target: o.playerId,
    run: async () => {
      const done = await unbanPlayer(o);
      boards = done.boards;
      return done;
    },
    after: (unban) => ({ entries: unban.entries }),
    invalidate: () => syncRankIndex(o.projectId, [o.playerId], boards),
  });
  const { boards: _boards, ...dto } = unban;
  return dto;
}

/** Ends every session of the player (their refresh tokens stop working; access tokens within the session-cache bound). */
export function revokePlayerSessionsAs(ctx: OperatorContext, o: PlayerRef) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.revoke-sessions",
    target: o.playerId,
    run: async () => ({ revoked: await revokeSessions({ ...o, reason: "operator" }) }),
    after: (result) => result,
  });
}

/**
 * The player and everything they own (see deletePlayer). The audit row keeps the player's id
 * and what was removed (counts), never their name or e-mail: a deletion must not leave the
 * personal data it removed in the audit log.
 */
export function deletePlayerAs(ctx: OperatorContext, o: PlayerRef) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.delete",
    target: o.playerId,
    run: () => deletePlayer(o),
    after: (removed) => ({ by: "operator", ...removed }),
  });
}

/** Everything the project holds about the player, as the player's own export (GET /players/me/export) shows it. */
export function exportPlayerAs(ctx: OperatorContext, o: PlayerRef) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.export",
    target: o.playerId,
    run: (actor) => exportPlayerData({ actor, playerId: o.playerId }),
  });
}

/** Mails the player a password reset code (support), audited without the address. */
export function sendResetCodeAs(ctx: OperatorContext, o: PlayerRef) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.send-reset-code",
    target: o.playerId,
    run: () => sendResetCodeNow(o),
  });
}

/** Mails the player a new verification code; `sent: false` when the address is verified already (or there is none). */
export function resendVerificationAs(ctx: OperatorContext, o: PlayerRef) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.resend-verification",
    target: o.playerId,
    run: async () => ({ sent: await sendVerificationCode(o) }),
    after: (result) => result,
  });
}

/** One data key as an operator reads it (any member; protected keys too). */
export async function playerDataAs(ctx: OperatorContext, o: PlayerRef & { key: string }) {
  const actor = await authorize(ctx, o.projectId, "VIEWER");
  return getPlayerData({ actor, playerId: o.playerId, key: o.key });
}

/** One data key set as a trusted writer, with the API's version check (If-Match). */
export function setPlayerDataAs(ctx: OperatorContext, o: PlayerRef & { key: string; value: JsonValue; version: number }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.data",
    target: `${o.playerId}/${o.key}`,
    run: async (actor) => {
      const before = await getPlayerData({ actor, playerId: o.playerId, key: o.key });
      const { record } = await putPlayerData({
        actor,
        playerId: o.playerId,
        key: o.key,
        value: o.value,
        precondition: { ifMatch: o.version },
      });
      return { before, record };
    },
    beforeOf: ({ before }) => ({ version: before.version, value: before.value }),
    after: ({ record }) => ({ version: record.version, value: record.value }),
  }).then(({ record }) => record);
}
