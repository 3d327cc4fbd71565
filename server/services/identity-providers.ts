import { z } from "zod";
import { prisma } from "../db";
import { AppError } from "../errors";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** JWKS URLs come only from here (operators), never from a client: https, or http on loopback. */
export const ZIdentityProviderInput = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "Lower-case letters, digits, - and _, up to 64."),
  issuer: z.string().min(1).max(512),
  jwksUrl: z
    .string()
    .url()
    .refine((u) => {
      const url = new URL(u);
      return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname));
    }, "Must be https (http only on loopback)."),
  audience: z.string().min(1).max(512),
  algorithms: z
    .array(z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]))
    .min(1)
    .default(["RS256", "ES256"]),
});
export type IdentityProviderInput = z.input<typeof ZIdentityProviderInput>;
export type IdentityProviderDto = { id: string; issuer: string; jwksUrl: string; audience: string; algorithms: string[] };

const select = { id: true, issuer: true, jwksUrl: true, audience: true, algorithms: true } as const;

export async function upsertIdentityProvider(o: { projectId: string; provider: IdentityProviderInput }): Promise<IdentityProviderDto> {
  const parsed = ZIdentityProviderInput.safeParse(o.provider);
  if (!parsed.success) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
    });
  }
  const { id, ...data } = parsed.data;
  return prisma().identityProvider.upsert({
    where: { projectId_id: { projectId: o.projectId, id } },
    create: { projectId: o.projectId, id, ...data },
    update: data,
    select,
  });
}

export async function findIdentityProvider(o: { projectId: string; id: string }): Promise<IdentityProviderDto | null> {
  return prisma().identityProvider.findUnique({ where: { projectId_id: { projectId: o.projectId, id: o.id } }, select });
}
