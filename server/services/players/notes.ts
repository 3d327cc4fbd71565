import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { ROLE_RANK } from "../../identity/operator";
import { type OperatorContext, runCommand, viewerRead } from "../command";
import { MAX_TAGS_PER_PLAYER } from "./notes-schemas";

/**
 * Support's notes and tags on a player: operators (admins and owners) write them, viewers read
 * them. They are the studio's, never the player's: no game API answers them and the player's
 * export leaves them out (docs/operating/support.md says why). Audit rows name the note's id
 * and length, never its text, so a deleted player's notes do not live on in the audit log.
 * Another project's player is PLAYER_NOT_FOUND: every statement filters by the project.
 */
type PlayerRef = { projectId: string; playerId: string };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PlayerNoteDto = { id: string; body: string; authorId: string | null; authorEmail: string | null; createdAt: string };

/**
 * The player's row locked for the rest of the transaction (FOR NO KEY UPDATE): notes and tag
 * sets of one player change one at a time, and a deletion racing them waits.
 */
async function lockPlayer(o: PlayerRef): Promise<void> {
  if (!UUID.test(o.playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const { rowCount } = await pool().query("SELECT 1 FROM players WHERE project_id = $1 AND id = $2::uuid FOR NO KEY UPDATE", [
    o.projectId,
    o.playerId,
  ]);
  if (rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
}

export function addPlayerNoteAs(ctx: OperatorContext, o: PlayerRef & { body: string }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.note.add",
    target: o.playerId,
    run: async (actor): Promise<PlayerNoteDto> => {
      await lockPlayer(o);
      const id = uuidv7();
      const { rows } = await pool().query<{ created_at: Date; email: string | null }>(
        `INSERT INTO player_notes (id, project_id, player_id, author_id, body) VALUES ($1, $2, $3::uuid, $4, $5)
         RETURNING created_at, (SELECT email FROM operators WHERE id = $4) AS email`,
        [id, o.projectId, o.playerId, actor.operatorId, o.body],
      );
      const row = rows[0];
      if (!row) throw new Error("INSERT … RETURNING returned no row");
      return { id, body: o.body, authorId: actor.operatorId, authorEmail: row.email, createdAt: row.created_at.toISOString() };
    },
    after: (note) => ({ noteId: note.id, chars: note.body.length }),
  });
}

/** Its author deletes a note (admins); owners (and instance admins) delete anyone's. */
export function deletePlayerNoteAs(ctx: OperatorContext, o: PlayerRef & { noteId: string }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.note.delete",
    target: o.playerId,
    run: async (actor) => {
      await lockPlayer(o);
      if (!UUID.test(o.noteId)) throw new AppError("NOT_FOUND", { message: "Note not found." });
      const { rows } = await pool().query<{ author_id: string | null; created_at: Date; chars: number }>(
        `SELECT author_id, created_at, char_length(body) AS chars FROM player_notes
          WHERE project_id = $1 AND player_id = $2::uuid AND id = $3::uuid`,
        [o.projectId, o.playerId, o.noteId],
      );
      const note = rows[0];
      if (!note) throw new AppError("NOT_FOUND", { message: "Note not found." });
      if (note.author_id !== actor.operatorId && ROLE_RANK[actor.role] < ROLE_RANK.OWNER)
        throw new AppError("FORBIDDEN", { message: "Only its author or an owner may delete this note." });
      await pool().query("DELETE FROM player_notes WHERE project_id = $1 AND id = $2::uuid", [o.projectId, o.noteId]);
      return {
        deleted: true as const,
        note: { noteId: o.noteId, authorId: note.author_id, createdAt: note.created_at, chars: note.chars },
      };
    },
    beforeOf: (result) => result.note,
  }).then(({ deleted }) => ({ deleted }));
}

/** Replaces the player's tags with `tags` (deduplicated, sorted); audited with the sets before and after. */
export function setPlayerTagsAs(ctx: OperatorContext, o: PlayerRef & { tags: string[] }) {
  const tags = [...new Set(o.tags)].sort();
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "player.tags",
    target: o.playerId,
    run: async () => {
      if (tags.length > MAX_TAGS_PER_PLAYER)
        throw new AppError("VALIDATION_ERROR", {
          details: { issues: [{ path: "tags", message: `At most ${MAX_TAGS_PER_PLAYER} tags per player.` }] },
        });
      await lockPlayer(o);
      const before = await tagsOf(o);
      await pool().query("DELETE FROM player_tags WHERE project_id = $1 AND player_id = $2::uuid AND NOT (tag = ANY($3::text[]))", [
        o.projectId,
        o.playerId,
        tags,
      ]);
      await pool().query(
        `INSERT INTO player_tags (project_id, player_id, tag) SELECT $1, $2::uuid, t FROM unnest($3::text[]) AS t
         ON CONFLICT (player_id, tag) DO NOTHING`,
        [o.projectId, o.playerId, tags],
      );
      return { before, tags };
    },
    beforeOf: ({ before }) => ({ tags: before }),
    after: (result) => ({ tags: result.tags }),
  }).then(({ tags: saved }) => ({ tags: saved }));
}

async function tagsOf(o: PlayerRef): Promise<string[]> {
  const { rows } = await pool().query<{ tag: string }>(
    "SELECT tag FROM player_tags WHERE project_id = $1 AND player_id = $2::uuid ORDER BY tag",
    [o.projectId, o.playerId],
  );
  return rows.map((r) => r.tag);
}

/** The player's notes, newest first, with their authors' addresses (null: the account was removed). */
export async function playerNotes(o: PlayerRef): Promise<PlayerNoteDto[]> {
  const { rows } = await pool().query<{ id: string; body: string; author_id: string | null; email: string | null; created_at: Date }>(
    `SELECT n.id, n.body, n.author_id, op.email, n.created_at FROM player_notes n LEFT JOIN operators op ON op.id = n.author_id
      WHERE n.project_id = $1 AND n.player_id = $2::uuid ORDER BY n.created_at DESC, n.id DESC`,
    [o.projectId, o.playerId],
  );
  return rows.map((r) => ({ id: r.id, body: r.body, authorId: r.author_id, authorEmail: r.email, createdAt: r.created_at.toISOString() }));
}

/** Every tag in the project with how many players carry it (the players list's tag filter). */
export async function projectTags(o: { projectId: string }): Promise<Array<{ tag: string; players: number }>> {
  const { rows } = await pool().query<{ tag: string; players: number }>(
    "SELECT tag, count(*)::int AS players FROM player_tags WHERE project_id = $1 GROUP BY tag ORDER BY tag",
    [o.projectId],
  );
  return rows;
}

export const projectTagsAs = viewerRead(projectTags);
export { tagsOf as playerTags };
