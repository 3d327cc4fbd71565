import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { dedicatedApp } from "../support/dedicated-app";
import { makeProject, type TestProject } from "../support/fixtures";

/**
 * A provider's key-set URL is checked again by every fetch, not only when it is saved: a host
 * name that resolved to a public address when an admin saved it may resolve to the server's own
 * network later (DNS rebinding, a changed record). The app here runs with the production default
 * (IDP_ALLOW_PRIVATE_NETWORKS off). The row is written directly, as it would stand after such a
 * save; `localhost` is the name that now resolves to 127.0.0.1, where a key server listens and
 * counts every connection it gets.
 */
const connections: Socket[] = [];
const keyServer = createServer((_req, res) => res.end(JSON.stringify({ keys: [] })));
keyServer.on("connection", (socket: Socket) => connections.push(socket));
let project: TestProject;
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => keyServer.listen(0, "127.0.0.1", resolve));
  port = (keyServer.address() as AddressInfo).port;
  project = await makeProject();
  await prisma().identityProvider.create({
    data: {
      projectId: project.projectId,
      id: "rebound",
      issuer: "https://accounts.example.test",
      jwksUrl: `https://localhost:${port}/jwks.json`,
      audience: "game",
      algorithms: ["RS256"],
    },
  });
});
afterAll(() => {
  keyServer.closeAllConnections();
  return new Promise<void>((resolve) => keyServer.close(() => resolve()));
});

describe("identity-provider key sets with private networks refused (the production default)", () => {
  const app = dedicatedApp({ IDP_ALLOW_PRIVATE_NETWORKS: "false" });

  it("L1: a key-set URL whose host now resolves to 127.0.0.1 is refused at sign-in (401 INVALID_IDP_TOKEN) without connecting", async () => {
    // Any well-formed JWT: the key set is needed before its signature can be checked.
    const header = Buffer.from(JSON.stringify({ alg: "RS256", kid: "k1", typ: "JWT" })).toString("base64url");
    const payload = Buffer.from(JSON.stringify({ sub: "u1", iss: "https://accounts.example.test", aud: "game" })).toString("base64url");
    const res = await fetch(`${app().baseUrl}/api/v1/auth/idp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": project.clientKey },
      body: JSON.stringify({ provider: "rebound", token: `${header}.${payload}.c2ln` }),
    });
    const body = (await res.json()) as { error?: { code: string; details: { reason?: string } } };
    expect({ status: res.status, code: body.error?.code, reason: body.error?.details.reason }).toEqual({
      status: 401,
      code: "INVALID_IDP_TOKEN",
      reason: "provider_address",
    });
    expect(connections).toHaveLength(0);
  });
});
