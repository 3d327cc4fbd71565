import { z } from "zod";
import { applyImportAs, dryRunImportAs, exportConfigAs } from "../../services/config";
import { ZConfigDocument } from "../../services/config/schemas";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();

/**
 * Configuration as code: viewers export; importing needs the admin role. `dryRun` changes
 * nothing and returns the diff, the refusals and the diff's hash; `import` recomputes the diff in
 * its transaction and, given `expectDiffHash`, refuses (VERSION_CONFLICT) when it is no longer
 * the diff that was reviewed.
 */
export const configRouter = router({
  export: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => exportConfigAs(ctx, input)),

  dryRun: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, document: ZConfigDocument })))
    .mutation(({ ctx, input }) => dryRunImportAs(ctx, input)),

  import: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, document: ZConfigDocument, expectDiffHash: z.string().max(64).optional() })))
    .mutation(({ ctx, input }) => applyImportAs(ctx, input)),
});
