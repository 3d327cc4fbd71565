import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";
import { operatorTokenForTests } from "../support/operator-sign-in";

/**
 * The tRPC door knows its caller before it reads a body: a caller who is not signed in may send
 * 16 KiB, a signed-in one 2 MiB (16 MiB for a config import); a batch holds at most 20 calls.
 */
const KiB = 1024;
const MiB = 1024 * KiB;

async function post(path: string, body: string, token?: string) {
  const res = await fetch(`${baseUrl()}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body,
  });
  return {
    status: res.status,
    body: (await res.json().catch(() => null)) as { error?: { code: string; message: string; details: Record<string, unknown> } } | null,
  };
}

describe("tRPC limits", () => {
  let token: string;
  beforeAll(async () => {
    token = await operatorTokenForTests();
  });

  it("L4: a signed-out config.import of 3 MiB answers 413 at the 16 KiB cap", async () => {
    const res = await post("/api/trpc/config.import", JSON.stringify({ projectId: "x", document: "y".repeat(3 * MiB) }));
    expect(res.status).toBe(413);
    expect(res.body?.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limitBytes: 16 * KiB } });
  });

  it("L4: a signed-out tRPC post of 20 KiB answers 413", async () => {
    const res = await post("/api/trpc/members.invite", JSON.stringify({ token: "x".repeat(20 * KiB) }));
    expect(res.status).toBe(413);
    expect(res.body?.error?.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("L4: a signed-in (operator token) tRPC post of 20 KiB is read and reaches the procedure", async () => {
    const res = await post("/api/trpc/members.invite", JSON.stringify({ token: "x".repeat(20 * KiB) }), token);
    expect(res.status).not.toBe(413);
    expect(res.status).toBeLessThan(500);
  });

  it("L4: a batch of 21 calls answers 400 naming the 20-call limit", async () => {
    const procedures = Array.from({ length: 21 }, () => "account.sessions").join(",");
    const res = await fetch(`${baseUrl()}/api/trpc/${procedures}?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(body.error).toMatchObject({ code: "VALIDATION_ERROR", details: { maxBatchCalls: 20, calls: 21 } });
    expect(body.error.message).toContain("at most 20 calls");
  });

  it("L4: a batch of 20 calls is served", async () => {
    const procedures = Array.from({ length: 20 }, () => "account.sessions").join(",");
    const res = await fetch(`${baseUrl()}/api/trpc/${procedures}?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).not.toBe(400);
    expect(((await res.json()) as unknown[]).length).toBe(20);
  });
});
