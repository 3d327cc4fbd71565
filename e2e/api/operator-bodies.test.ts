import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";
import { operatorTokenForTests } from "../support/operator-sign-in";

/**
 * The operator doors read bodies themselves (tRPC, next-auth): they are capped while streaming,
 * before anything parses them, and refused with 413 in the error shape — also without signing in.
 */
const MiB = 1024 * 1024;

function streamOf(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

async function post(path: string, body: string | ReadableStream<Uint8Array>, contentType = "application/json", token?: string) {
  const res = await fetch(`${baseUrl()}${path}`, {
    method: "POST",
    headers: { "Content-Type": contentType, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body,
    ...(typeof body === "string" ? {} : { duplex: "half" }),
  } as RequestInit);
  return {
    status: res.status,
    body: (await res.json().catch(() => null)) as { error?: { code: string; details: Record<string, unknown> } } | null,
  };
}

describe("operator request bodies", () => {
  let token: string;
  beforeAll(async () => {
    token = await operatorTokenForTests();
  });

  it("a signed-in 3 MiB tRPC post with Content-Length answers 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await post("/api/trpc/members.invite", JSON.stringify({ token: "x".repeat(3 * MiB) }), "application/json", token);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: expect.any(String), details: { limitBytes: 2 * MiB } } });
  });

  it("a signed-in streamed tRPC post (no Content-Length) is cut off at the cap with 413", async () => {
    const res = await post("/api/trpc/members.invite", streamOf(8 * MiB), "application/json", token);
    expect(res.status).toBe(413);
    expect(res.body?.error?.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it.each(["config.import", "config.dryRun"])(
    "a signed-in %s may be larger than 2 MiB: it reaches the procedure (which finds no such project)",
    async (procedure) => {
      const res = await post(
        `/api/trpc/${procedure}`,
        JSON.stringify({ projectId: "x", document: "y".repeat(3 * MiB) }),
        "application/json",
        token,
      );
      expect(res.status).not.toBe(413);
      expect(res.status).toBeLessThan(500);
    },
  );

  it("a sign-in post over 64 KiB answers 413 before next-auth parses it", async () => {
    const res = await post(
      "/api/auth/callback/credentials",
      `email=a%40b.c&password=${"x".repeat(100 * 1024)}`,
      "application/x-www-form-urlencoded",
    );
    expect(res.status).toBe(413);
    expect(res.body?.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limitBytes: 64 * 1024 } });
  });

  it("after a refused body the same kept-alive connection answers the next request", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await raw(agent, "/api/auth/callback/credentials", "x".repeat(3 * MiB));
      expect(refused.status).toBe(413);
      expect(refused.connection).not.toBe("close");
      const next = await raw(agent, "/api/auth/csrf");
      expect(next).toMatchObject({ status: 200, reusedSocket: true });
    } finally {
      agent.destroy();
    }
  });

  it("a declared body over 16 MiB is refused at once with Connection: close (its rest is not read)", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // Declares 64 MiB and sends 1 MiB: the answer cannot wait for the rest.
      const refused = await raw(agent, "/api/trpc/members.invite", "x".repeat(MiB), 64 * MiB);
      expect(refused).toMatchObject({ status: 413, connection: "close" });
    } finally {
      agent.destroy();
    }
  });
});

/** A request over node:http, to see the connection: a body (with an optional declared length) and what came back. */
function raw(
  agent: http.Agent,
  path: string,
  body?: string,
  declaredBytes?: number,
): Promise<{ status: number; connection: string | undefined; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl()}${path}`, {
      agent,
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "Content-Type": "application/json", "Content-Length": declaredBytes ?? Buffer.byteLength(body) },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reusedSocket: req.reusedSocket }));
    });
    if (declaredBytes === undefined) req.end(body);
    else req.write(body); // less than declared: the request stays open
  });
}
