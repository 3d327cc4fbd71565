import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, newOperator } from "../support/operators";

/**
 * POST /players/{id}/report over HTTP: accepted reports are rows in the queue; every refusal
 * stores nothing. The missing/bad key and token cases are the shared suite's
 * (e2e/api/player-credentials.test.ts).
 */
let project: TestProject;
let other: TestProject;
let reporter: TestPlayer;
let target: TestPlayer;

type Report = { id: string; reporter_id: string; target_id: string; reason: string; note: string | null; status: string };
const reportsBy = async (reporterId: string) =>
  (
    await pool().query<Report>(
      "SELECT id, reporter_id, target_id, reason, note, status FROM player_reports WHERE reporter_id = $1 ORDER BY created_at",
      [reporterId],
    )
  ).rows;

const report = (by: TestPlayer, targetId: string, body: unknown, key = project.clientKey) =>
  api<{ id: string; status: string }>("POST", `/api/v1/players/${targetId}/report`, { key, token: by.accessToken, body });

beforeAll(async () => {
  project = await makeProject();
  other = await makeProject();
  reporter = await anonymousPlayer(project.clientKey);
  target = await anonymousPlayer(project.clientKey);
});

describe("reporting a player", () => {
  it("is accepted with 202 and the report's id, and waits open in the queue", async () => {
    const res = await report(reporter, target.playerId, { reason: "cheating", note: "Scores 10x anyone else's" });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ id: expect.any(String), status: "open" });
    expect(await reportsBy(reporter.playerId)).toEqual([
      {
        id: res.body.id,
        reporter_id: reporter.playerId,
        target_id: target.playerId,
        reason: "cheating",
        note: "Scores 10x anyone else's",
        status: "open",
      },
    ]);
  });

  it("again while the report is open updates it: the same id, no second row", async () => {
    const someone = await anonymousPlayer(project.clientKey);
    const first = await report(someone, target.playerId, { reason: "spam" });
    const again = await report(someone, target.playerId, { reason: "abuse", note: "Now insults too" });
    expect(again.status, again.text).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    const rows = await reportsBy(someone.playerId);
    expect(rows.map((r) => [r.reason, r.note])).toEqual([["abuse", "Now insults too"]]);
  });

  it("oneself is 400 CANNOT_REPORT_SELF, by `me` or by one's own id, and stores nothing", async () => {
    const self = await anonymousPlayer(project.clientKey);
    for (const id of ["me", self.playerId]) {
      const res = await report(self, id, { reason: "cheating" });
      expect(res.status, res.text).toBe(400);
      expect((res.body as unknown as { error: { code: string } }).error.code).toBe("CANNOT_REPORT_SELF");
    }
    expect(await reportsBy(self.playerId)).toEqual([]);
  });

  it("another project's player is 404 PLAYER_NOT_FOUND, like an unknown id, and stores nothing", async () => {
    const stranger = await anonymousPlayer(other.clientKey);
    const someone = await anonymousPlayer(project.clientKey);
    for (const id of [stranger.playerId, "0192f000-0000-7000-8000-000000000000"]) {
      const res = await report(someone, id, { reason: "cheating" });
      expect(res.status, res.text).toBe(404);
      expect((res.body as unknown as { error: { code: string } }).error.code).toBe("PLAYER_NOT_FOUND");
    }
    expect(await reportsBy(someone.playerId)).toEqual([]);
  });

  it("with a reason outside the project's list is 400 VALIDATION_ERROR naming the valid reasons, and stores nothing", async () => {
    const someone = await anonymousPlayer(project.clientKey);
    const res = await report(someone, target.playerId, { reason: "too_good" });
    expect(res.status, res.text).toBe(400);
    const error = (res.body as unknown as { error: { code: string; details: { reasons: string[]; issues: Array<{ path: string }> } } })
      .error;
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.details.issues.map((i) => i.path)).toEqual(["body.reason"]);
    expect(error.details.reasons).toEqual(["cheating", "abuse", "offensive_name", "spam", "other"]);
    expect(await reportsBy(someone.playerId)).toEqual([]);
  });

  it("uses the reasons operators set for the project", async () => {
    const own = await makeProject();
    const owner = await newOperator("OWNER", own.projectId);
    await caller(owner).moderation.setReasons({ projectId: own.projectId, reasons: ["griefing", "other"] });
    const [a, b] = [await anonymousPlayer(own.clientKey), await anonymousPlayer(own.clientKey)];
    const refused = await report(a, b.playerId, { reason: "cheating" }, own.clientKey);
    expect(refused.status, refused.text).toBe(400);
    const accepted = await report(a, b.playerId, { reason: "griefing" }, own.clientKey);
    expect(accepted.status, accepted.text).toBe(202);
  });

  it("with a note over 500 characters is 400 VALIDATION_ERROR on `body.note`, and stores nothing", async () => {
    const someone = await anonymousPlayer(project.clientKey);
    const res = await report(someone, target.playerId, { reason: "other", note: "x".repeat(501) });
    expect(res.status, res.text).toBe(400);
    const error = (res.body as unknown as { error: { code: string; details: { issues: Array<{ path: string }> } } }).error;
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.details.issues.map((i) => i.path)).toEqual(["body.note"]);
    expect(await reportsBy(someone.playerId)).toEqual([]);
  });

  it("with malformed JSON is 400 INVALID_JSON, and stores nothing", async () => {
    const someone = await anonymousPlayer(project.clientKey);
    const res = await report(someone, target.playerId, '{"reason": "cheating"');
    expect(res.status, res.text).toBe(400);
    expect((res.body as unknown as { error: { code: string } }).error.code).toBe("INVALID_JSON");
    expect(await reportsBy(someone.playerId)).toEqual([]);
  });

  it("an 11th new report within the hour is 429 RATE_LIMITED with Retry-After and the rate-limit headers; nothing is stored", async () => {
    const busy = await anonymousPlayer(project.clientKey);
    const targets = await Promise.all(Array.from({ length: 11 }, () => anonymousPlayer(project.clientKey)));
    for (const t of targets.slice(0, 10)) {
      const res = await report(busy, t.playerId, { reason: "spam" });
      expect(res.status, res.text).toBe(202);
    }
    const last = targets[10];
    if (!last) throw new Error("eleven targets");
    const refused = await report(busy, last.playerId, { reason: "spam" });
    expect(refused.status, refused.text).toBe(429);
    expect((refused.body as unknown as { error: { code: string; details: { scope: string } } }).error).toMatchObject({
      code: "RATE_LIMITED",
      details: { scope: "player-reports", limit: 10, windowSeconds: 3600 },
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("10");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-policy")).toBe('"player-reports";q=10;w=3600');
    expect((await reportsBy(busy.playerId)).length).toBe(10);
  });

  it("a repeat of an open report still updates it when the reporter's limit is spent", async () => {
    const busy = await anonymousPlayer(project.clientKey);
    const targets = await Promise.all(Array.from({ length: 10 }, () => anonymousPlayer(project.clientKey)));
    for (const t of targets) expect((await report(busy, t.playerId, { reason: "spam" })).status).toBe(202);
    const first = targets[0];
    if (!first) throw new Error("ten targets");
    const again = await report(busy, first.playerId, { reason: "abuse" });
    expect(again.status, again.text).toBe(202);
    expect((await reportsBy(busy.playerId)).length).toBe(10);
  });
});
