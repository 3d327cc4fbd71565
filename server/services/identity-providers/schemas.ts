import { z } from "zod";

/** Client-safe (zod only): the dashboard's provider form validates with the same schema as the service. */
export const OIDC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;

export const ZIdentityProviderInput = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "Lower-case letters, digits, - and _, up to 64."),
  issuer: z.string().min(1).max(512),
  jwksUrl: z.string().url().max(2048),
  audience: z.string().min(1).max(512),
  algorithms: z.array(z.enum(OIDC_ALGORITHMS)).min(1, "Allow at least one algorithm.").default(["RS256", "ES256"]),
});
export type IdentityProviderInput = z.input<typeof ZIdentityProviderInput>;
