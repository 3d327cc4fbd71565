import { z } from "zod";
import {
  identityProvidersAs,
  removeIdentityProviderAs,
  saveIdentityProviderAs,
  ZIdentityProviderInput,
} from "../../services/identity-providers";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();

/** OIDC identity providers of a project, with the service's checks (https JWKS on a public address, pinned algorithms). */
export const providersRouter = router({
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => identityProvidersAs(ctx, input)),

  save: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, provider: ZIdentityProviderInput })))
    .mutation(({ ctx, input }) => saveIdentityProviderAs(ctx, input)),

  delete: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, id: z.string().max(64) })))
    .mutation(({ ctx, input }) => removeIdentityProviderAs(ctx, input)),
});
