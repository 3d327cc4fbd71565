import { z } from "zod";
import { auditActorFor } from "../../auth/operator";
import { transaction } from "../../db";
import { recordAudit } from "../../services/audit";
import {
  deleteIdentityProvider,
  listIdentityProviders,
  upsertIdentityProvider,
  ZIdentityProviderInput,
} from "../../services/identity-providers";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();

/** OIDC identity providers of a project, with the service's checks (https JWKS on a public address, pinned algorithms). */
export const providersRouter = router({
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ input }) => listIdentityProviders(input)),

  save: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, provider: ZIdentityProviderInput })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const saved = await upsertIdentityProvider({ projectId: input.projectId, provider: input.provider });
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "provider.save",
          target: saved.id,
          after: saved,
        });
        return saved;
      }),
    ),

  delete: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, id: z.string().max(64) })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        await deleteIdentityProvider(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "provider.delete",
          target: input.id,
        });
      }),
    ),
});
