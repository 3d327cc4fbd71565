import { AppError } from "../errors";
import { signedInOperator } from "../identity/next-auth";
import { operatorForToken } from "../identity/operator-tokens";
import type { OperatorContext } from "../services/command";

/**
 * The operator of a dashboard route handler (not tRPC: a download), resolved as the tRPC
 * endpoint does: `Authorization: Bearer gbo_…` (an operator access token; the cookie is not
 * read) or the dashboard session cookie. With the cookie, a request another site started
 * (`Sec-Fetch-Site: cross-site`) is refused: a download is audited, so it must be the operator's.
 */
export async function dashboardContext(req: Request, requestId: string): Promise<OperatorContext> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  if (bearer !== undefined) {
    const operator = await operatorForToken(bearer);
    if (!operator) throw new AppError("INVALID_TOKEN", { message: "The access token is unknown, revoked or expired." });
    return { operator, requestId };
  }
  if (req.headers.get("sec-fetch-site") === "cross-site") throw new AppError("FORBIDDEN", { message: "Cross-site request refused." });
  return { operator: await signedInOperator(), requestId };
}
