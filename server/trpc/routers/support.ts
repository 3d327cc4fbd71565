import { z } from "zod";
import { addPlayerNoteAs, deletePlayerNoteAs, projectTagsAs, setPlayerTagsAs } from "../../services/players/notes";
import { ZNoteBody, ZTags } from "../../services/players/notes-schemas";
import { playerSupportAs } from "../../services/players/support";
import { input, projectProcedure, router } from "../init";

/**
 * Support on a player's page: last seen, board entries, ban history, and the studio's notes and
 * tags. Viewers read; admins and owners write (the services decide and audit).
 */
const ZProjectId = z.string().uuid();
const ZPlayer = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });

export const supportRouter = router({
  player: projectProcedure("VIEWER")
    .input(input(ZPlayer))
    .query(({ ctx, input }) => playerSupportAs(ctx, input)),

  /** Every tag of the project with its number of players (the players list's filter). */
  tags: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => projectTagsAs(ctx, input)),

  addNote: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ body: ZNoteBody })))
    .mutation(({ ctx, input }) => addPlayerNoteAs(ctx, input)),

  deleteNote: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ noteId: z.string().uuid() })))
    .mutation(({ ctx, input }) => deletePlayerNoteAs(ctx, input)),

  setTags: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ tags: ZTags })))
    .mutation(({ ctx, input }) => setPlayerTagsAs(ctx, input)),
});
