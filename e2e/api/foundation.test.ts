import { createHash } from "node:crypto";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { ERRORS } from "@/server/errors";
import { revokeApiKey } from "@/server/services/projects";
import { api, baseUrl, expectError } from "../support/api";
import { makeProject, type TestProject } from "../support/fixtures";

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

const ANON = "/api/v1/auth/anonymous";

describe("POST /auth/anonymous", () => {
  it("creates a new player with a session each call", async () => {
    const first = await api<Record<string, unknown>>("POST", ANON, { key: project.clientKey, body: {} });
    const second = await api<Record<string, unknown>>("POST", ANON, { key: project.clientKey });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body).toMatchObject({ tokenType: "Bearer", expiresIn: 900, created: true });
    expect(first.body.playerId).not.toBe(second.body.playerId);
    expect(second.body).toMatchObject({ tokenType: "Bearer", created: true });
    for (const body of [first.body, second.body]) {
      const player = await prisma().player.findFirst({ where: { id: String(body.playerId), projectId: project.projectId } });
      expect(player).not.toBeNull();
      expect(await prisma().session.count({ where: { playerId: String(body.playerId) } })).toBe(1);
    }
  });

  it("signs access tokens with the pinned algorithm, issuer, audience and project claims", async () => {
    const res = await api<{ accessToken: string; playerId: string; refreshToken: string }>("POST", ANON, { key: project.clientKey });
    expect(decodeProtectedHeader(res.body.accessToken).alg).toBe("HS256");
    const claims = decodeJwt(res.body.accessToken);
    expect(claims).toMatchObject({ sub: res.body.playerId, pid: project.projectId, iss: "game-backend", aud: "game-api" });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(900);
    expect(res.body.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
  });

  it("stores refresh tokens only as their SHA-256", async () => {
    const res = await api<{ refreshToken: string; playerId: string }>("POST", ANON, { key: project.clientKey });
    const rows = await prisma().refreshToken.findMany({ where: { session: { playerId: res.body.playerId } } });
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]?.tokenHash ?? [])).toEqual(createHash("sha256").update(res.body.refreshToken).digest());
    // No other column holds the token in clear.
    expect(JSON.stringify(rows[0])).not.toContain(res.body.refreshToken.slice(3));
  });
});

describe("API keys", () => {
  it("answers 401 MISSING_API_KEY without a key", async () => {
    expectError(await api("POST", ANON), 401, "MISSING_API_KEY");
  });

  it("answers 401 INVALID_API_KEY for an unknown key, well-formed or not", async () => {
    expectError(await api("POST", ANON, { key: "gb_client_doesnotexist00000000000000000000" }), 401, "INVALID_API_KEY");
    expectError(await api("POST", ANON, { key: "nonsense" }), 401, "INVALID_API_KEY");
  });

  it("answers 401 INVALID_API_KEY for a revoked key", async () => {
    const other = await makeProject();
    const key = await prisma().apiKey.findFirstOrThrow({ where: { projectId: other.projectId, kind: "CLIENT" }, select: { id: true } });
    await revokeApiKey({ projectId: other.projectId, keyId: key.id });
    expectError(await api("POST", ANON, { key: other.clientKey }), 401, "INVALID_API_KEY");
  });
});

describe("request bodies", () => {
  it("refuses X-Player-Id from a client key on a key-only route too (player routes: the shared credential suite)", async () => {
    expectError(
      await api("POST", ANON, { key: project.clientKey, headers: { "X-Player-Id": "00000000-0000-7000-8000-000000000000" } }),
      403,
      "FORBIDDEN",
    );
  });

  it("answers 415 for a body that is not JSON by content type", async () => {
    expectError(
      await api("POST", ANON, { key: project.clientKey, body: "{}", headers: { "Content-Type": "text/plain" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  it("answers 415 for a body without a content type", async () => {
    const res = await fetch(`${baseUrl()}${ANON}`, { method: "POST", headers: { "X-API-Key": project.clientKey }, body: new Blob(["{}"]) });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers 400 INVALID_JSON for malformed JSON", async () => {
    expectError(await api("POST", ANON, { key: project.clientKey, body: '{"a":' }), 400, "INVALID_JSON");
  });

  it("answers 400 VALIDATION_ERROR naming unknown fields", async () => {
    const res = await api<{ error: { details: { issues: Array<{ path: string; message: string }> } } }>("POST", ANON, {
      key: project.clientKey,
      body: { isAdmin: true },
    });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.error.details.issues[0]?.message).toMatch(/isAdmin/);
  });

  it("answers 400 VALIDATION_ERROR for a body of the wrong type", async () => {
    expectError(await api("POST", ANON, { key: project.clientKey, body: "[1,2]" }), 400, "VALIDATION_ERROR");
  });

  it("answers 413 for a declared body over 2 MiB", async () => {
    const res = await api<{ error: { details: { limitBytes: number } } }>("POST", ANON, {
      key: project.clientKey,
      body: JSON.stringify({ pad: "x".repeat(2 * 1024 * 1024) }),
    });
    expectError(res, 413, "PAYLOAD_TOO_LARGE");
    expect(res.body.error.details.limitBytes).toBe(2 * 1024 * 1024);
  });

  it("answers 413 for a streamed body over 2 MiB without reading it all", async () => {
    const chunk = new Uint8Array(256 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 64 MiB if the server kept reading; it must stop after 2 MiB.
        if (sent >= 64 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${baseUrl()}${ANON}`, {
      method: "POST",
      headers: { "X-API-Key": project.clientKey, "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe("routing", () => {
  it("answers JSON 404 for unknown paths under /api/v1 and other versions", async () => {
    for (const path of ["/api/v1/nope", "/api/v1/auth/anonymous/extra", "/api/v2/auth/anonymous", "/api/unknown"]) {
      const res = await api("GET", path, { key: project.clientKey });
      expectError(res, 404, "NOT_FOUND");
      expect(res.headers.get("content-type")).toContain("application/json");
    }
  });

  it("answers JSON 405 with Allow for a known path and the wrong method", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const res = await api(method, ANON, { key: project.clientKey });
      expectError(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.get("allow")).toBe("POST, OPTIONS");
    }
  });

  it("answers CORS preflights without a key, allowing the headers the SDKs send (client identification included)", async () => {
    const res = await fetch(`${baseUrl()}${ANON}`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://game.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-api-key, content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers") ?? "";
    const sdkHeaders = ["X-Client-Version", "X-Platform"];
    for (const h of [
      "X-API-Key",
      "Authorization",
      "Content-Type",
      "Idempotency-Key",
      "If-Match",
      "If-None-Match",
      "X-Player-Id",
      ...sdkHeaders,
    ]) {
      expect(allowed).toContain(h);
    }
  });

  it("puts CORS, request-id and rate-limit headers on success and error responses", async () => {
    for (const res of [await api("POST", ANON, { key: project.clientKey }), await api("POST", ANON, { key: "gb_client_bad" })]) {
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit", "ratelimit-policy"]) {
        expect(res.headers.get(h), h).toBeTruthy();
      }
    }
  });

  it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
    const echoed = await api("POST", ANON, { key: project.clientKey, headers: { "X-Request-Id": "client-abc.123" } });
    expect(echoed.headers.get("x-request-id")).toBe("client-abc.123");
    const replaced = await api("POST", ANON, { key: project.clientKey, headers: { "X-Request-Id": "bad id <script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});

describe("health and documentation", () => {
  it("reports database and limiter state", async () => {
    const res = await fetch(`${baseUrl()}/api/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "ok", database: { ok: true }, limiter: { ok: true } });
    expect((body.limiter as { store: string }).store).toMatch(/^(redis|memory|upstash)$/);
    expect((body.limiter as { failOpen: number }).failOpen).toBeTypeOf("number");
    expect(body.version).toBeTypeOf("string");
  });

  it("serves the OpenAPI 3.1 document listing every error code and the docs page", async () => {
    const doc = (await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/auth/anonymous");
    expect([...doc.components.schemas.Error.properties.error.properties.code.enum].sort()).toEqual(Object.keys(ERRORS).sort());
    const page = await fetch(`${baseUrl()}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/docs/assets/swagger-ui-bundle.js");
    const bundle = await fetch(`${baseUrl()}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
  });
});
