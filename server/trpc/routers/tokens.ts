import { z } from "zod";
import { ZCreateOperatorToken } from "../../services/operator-token-schemas";
import { createTokenAs, listTokensAs, revokeTokenAs } from "../../services/operators";
import { input, operatorProcedure, router, sessionProcedure } from "../init";

/**
 * The caller's own operator access tokens. Creating one needs a dashboard session (a token cannot
 * mint tokens); a token lists and revokes only itself (a leaked token can revoke itself, not its
 * siblings); managing the others needs a dashboard session. The services check both themselves.
 */
export const tokensRouter = router({
  list: operatorProcedure.query(({ ctx }) => listTokensAs(ctx)),

  /** The secret is in this answer only; it is stored as a hash. */
  create: sessionProcedure.input(input(ZCreateOperatorToken)).mutation(({ ctx, input }) => createTokenAs(ctx, input)),

  revoke: operatorProcedure
    .input(input(z.strictObject({ tokenId: z.string().uuid() })))
    .mutation(({ ctx, input }) => revokeTokenAs(ctx, input)),
});
