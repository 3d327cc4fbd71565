import { prisma } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { hostOf, isPrivateAddress, resolveHost } from "../../outbound";
import { authorize, type OperatorContext, runCommand } from "../command";
import { type IdentityProviderInput, ZIdentityProviderInput } from "./schemas";

export { type IdentityProviderInput, ZIdentityProviderInput } from "./schemas";

function invalidJwksUrl(message: string): AppError {
  return new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "jwksUrl", message }] } });
}

/**
 * JWKS URLs come only from operators, never from clients. Unless private networks are allowed
 * (IDP_ALLOW_PRIVATE_NETWORKS, for development and tests), they must be https and every
 * address the host resolves to must be public, so the server cannot be pointed at its own
 * network. Checked when the provider is saved, and again by every key-set fetch on the addresses
 * it connects to (key-set.ts), so a DNS change afterwards cannot reach the server's network.
 */
export async function assertJwksUrlAllowed(jwksUrl: string, allowPrivateNetwork: boolean): Promise<void> {
  const url = new URL(jwksUrl);
  if (allowPrivateNetwork) {
    if (url.protocol !== "https:" && url.protocol !== "http:") throw invalidJwksUrl("Must be an http(s) URL.");
    return;
  }
  if (url.protocol !== "https:") throw invalidJwksUrl("Must be https.");
  const addresses = await resolveHost(hostOf(url));
  if (addresses.length === 0) throw invalidJwksUrl("The host does not resolve.");
  if (addresses.some((a) => isPrivateAddress(a.address))) throw invalidJwksUrl("The host resolves to a private or loopback address.");
}

export type IdentityProviderDto = { id: string; issuer: string; jwksUrl: string; audience: string; algorithms: string[] };

const select = { id: true, issuer: true, jwksUrl: true, audience: true, algorithms: true } as const;

export async function upsertIdentityProvider(o: {
  projectId: string;
  provider: IdentityProviderInput;
  allowPrivateNetwork?: boolean;
}): Promise<IdentityProviderDto> {
  const parsed = ZIdentityProviderInput.safeParse(o.provider);
  if (!parsed.success) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
    });
  }
  await assertJwksUrlAllowed(parsed.data.jwksUrl, o.allowPrivateNetwork ?? env().IDP_ALLOW_PRIVATE_NETWORKS);
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

export function listIdentityProviders(o: { projectId: string }): Promise<IdentityProviderDto[]> {
  return prisma().identityProvider.findMany({ where: { projectId: o.projectId }, select, orderBy: { id: "asc" } });
}

/** Players keep their linked identities; they cannot sign in with this provider until it is configured again. */
export async function deleteIdentityProvider(o: { projectId: string; id: string }): Promise<void> {
  const { count } = await prisma().identityProvider.deleteMany({ where: { projectId: o.projectId, id: o.id } });
  if (count === 0) throw new AppError("UNKNOWN_PROVIDER");
}

// ---- Operator commands (authorized, audited: server/services/command.ts) ----

/** Viewers and up: the project's providers. */
export async function identityProvidersAs(ctx: OperatorContext, o: { projectId: string }): Promise<IdentityProviderDto[]> {
  await authorize(ctx, o.projectId, "VIEWER");
  return listIdentityProviders(o);
}

/** Admins create or replace a provider, with the service's checks. Audited as provider.save. */
export function saveIdentityProviderAs(
  ctx: OperatorContext,
  o: { projectId: string; provider: IdentityProviderInput },
): Promise<IdentityProviderDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "provider.save",
    target: (saved) => saved.id,
    after: (saved) => saved,
    run: () => upsertIdentityProvider(o),
  });
}

/** Admins delete a provider. Audited as provider.delete. */
export function removeIdentityProviderAs(ctx: OperatorContext, o: { projectId: string; id: string }): Promise<void> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "provider.delete",
    target: o.id,
    run: () => deleteIdentityProvider(o),
  });
}
