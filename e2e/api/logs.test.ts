import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dedicatedApp } from "../support/dedicated-app";
import { anonymousPlayer, makeProject } from "../support/fixtures";
import { logLine, logLines } from "../support/launch.mjs";

/** The access log: one JSON line per game API answer, with what an operator searches by and nothing secret. */
describe("access lines (LOG_LEVEL unset: info)", () => {
  const app = dedicatedApp({});

  it("a player request's line names the route pattern, status, duration, project and player, and holds no key, token or body", async () => {
    const project = await makeProject();
    const player = await anonymousPlayer(project.clientKey);
    const requestId = `log-${randomBytes(4).toString("hex")}`;
    const secretValue = `secret-${randomBytes(6).toString("hex")}`;
    const res = await fetch(`${app().baseUrl}/api/v1/players/${player.playerId}/data/notes`, {
      method: "PUT",
      headers: {
        "X-API-Key": project.clientKey,
        Authorization: `Bearer ${player.accessToken}`,
        "X-Request-Id": requestId,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ value: { note: secretValue } }),
    });
    expect(res.status).toBe(201);
    const line = await logLine(app(), "the access line", (l) => l.requestId === requestId);
    expect(line).toEqual({
      level: "info",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      pid: expect.any(Number),
      component: "http",
      requestId,
      method: "PUT",
      route: "/api/v1/players/{id}/data/{key}",
      status: 201,
      durationMs: expect.any(Number),
      projectId: project.projectId,
      playerId: player.playerId,
      msg: "request",
    });
    const text = app().output();
    for (const secret of [project.clientKey, player.accessToken, player.refreshToken, secretValue]) expect(text).not.toContain(secret);
  });

  it("an error answer's line carries its error code", async () => {
    const requestId = `log-${randomBytes(4).toString("hex")}`;
    const res = await fetch(`${app().baseUrl}/api/v1/players/me`, { headers: { "X-Request-Id": requestId } });
    expect(res.status).toBe(401);
    const line = await logLine(app(), "the access line", (l) => l.requestId === requestId);
    expect(line).toMatchObject({ level: "info", route: "/api/v1/players/{id}", status: 401, code: "MISSING_API_KEY" });
  });
});

describe("LOG_LEVEL=warn and METRICS=off (the bench's 'off' side)", () => {
  const app = dedicatedApp({ LOG_LEVEL: "warn", METRICS: "off" });

  it("with METRICS=off, /api/metrics is the app's JSON 404", async () => {
    const res = await fetch(`${app().baseUrl}/api/metrics`);
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([404, "NOT_FOUND"]);
  });

  // Last in this block: it stops the app, so that every line it would write has been flushed.
  it("no line is written for an answered request", async () => {
    const requestId = `quiet-${randomBytes(4).toString("hex")}`;
    const res = await fetch(`${app().baseUrl}/api/v1/players/me`, { headers: { "X-Request-Id": requestId } });
    expect(res.status).toBe(401);
    await app().stop(); // the logger flushes on the way out
    expect(app().output()).not.toContain(requestId);
    expect(logLines(app().output()).some((l) => l.level === "info")).toBe(false);
  });
});
