import { z } from "zod";
import { auditActorFor } from "../../auth/operator";
import { ZCreateOperatorToken } from "../../auth/operator-token-schemas";
import { createOperatorToken, listOperatorTokens, revokeOperatorToken } from "../../auth/operator-tokens";
import { transaction } from "../../db";
import { recordAudit } from "../../services/audit";
import { input, operatorProcedure, router, sessionProcedure } from "../init";

/**
 * The caller's own operator access tokens. Creating one needs a dashboard session (a token cannot
 * mint tokens); a token lists and revokes only itself (a leaked token can revoke itself, not its
 * siblings); managing the others needs a dashboard session.
 */
export const tokensRouter = router({
  list: operatorProcedure.query(({ ctx }) => listOperatorTokens({ operatorId: ctx.operator.id, actingTokenId: ctx.operator.token?.id })),

  /** The secret is in this answer only; it is stored as a hash. */
  create: sessionProcedure.input(input(ZCreateOperatorToken)).mutation(({ ctx, input }) =>
    transaction(async () => {
      const created = await createOperatorToken({ operator: ctx.operator, ...input });
      const { token: _secret, ...safe } = created;
      await recordAudit({
        actor: auditActorFor(ctx.operator, ctx.requestId),
        projectId: null,
        action: "token.create",
        target: created.id,
        after: safe,
      });
      return created;
    }),
  ),

  revoke: operatorProcedure.input(input(z.strictObject({ tokenId: z.string().uuid() }))).mutation(({ ctx, input }) =>
    transaction(async () => {
      await revokeOperatorToken({ operatorId: ctx.operator.id, tokenId: input.tokenId, actingTokenId: ctx.operator.token?.id });
      await recordAudit({
        actor: auditActorFor(ctx.operator, ctx.requestId),
        projectId: null,
        action: "token.revoke",
        target: input.tokenId,
      });
    }),
  ),
});
