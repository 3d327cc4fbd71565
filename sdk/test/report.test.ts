import { GameApiError, memoryStorage } from "@game-backend/client";
import { beforeAll, describe, expect, it } from "vitest";
import { anonymousPlayer, type TestProject } from "@/e2e/support/fixtures";
import { pool } from "@/server/db";
import { client, gameProject, recordingFetch } from "./support";

/** players.report against the real server: the report is filed once, and each refusal is a typed error. */
let project: TestProject;
beforeAll(async () => {
  project = await gameProject();
});

const reportsBy = async (reporterId: string, targetId: string): Promise<number> =>
  Number(
    (
      await pool().query<{ n: string }>(
        "SELECT count(*) AS n FROM player_reports WHERE project_id = $1 AND reporter_id = $2 AND target_id = $3",
        [project.projectId, reporterId, targetId],
      )
    ).rows[0]?.n,
  );

describe("players.report", () => {
  it("files a report against another player: 202, one report stored", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage() });
    const { playerId } = await game.auth.anonymous();
    const target = await anonymousPlayer(project.clientKey);

    await game.players.report(target.playerId, { reason: "cheating", note: "Impossible times on every board" });
    const calls = log.filter((e) => e.path === `/api/v1/players/${target.playerId}/report`);
    expect(calls.map((e) => e.status)).toEqual([202]);
    expect(await reportsBy(playerId, target.playerId)).toBe(1);
  });

  it("reporting the same player again while the report is open answers the same report, not a second one", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const { playerId } = await game.auth.anonymous();
    const target = await anonymousPlayer(project.clientKey);
    const first = await game.players.report(target.playerId, { reason: "cheating" });
    const again = await game.players.report(target.playerId, { reason: "abuse", note: "And rude in chat" });
    expect(again).toEqual(first);
    expect(await reportsBy(playerId, target.playerId)).toBe(1);
  });

  it("reporting oneself rejects with 400 CANNOT_REPORT_SELF and stores nothing", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const { playerId } = await game.auth.anonymous();
    const error = await game.players.report(playerId, { reason: "spam" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameApiError);
    expect(error).toMatchObject({ status: 400, code: "CANNOT_REPORT_SELF" });
    expect(await reportsBy(playerId, playerId)).toBe(0);
  });

  it("a reporter over the per-reporter limit gets a 429 RATE_LIMITED GameApiError that says when to try again", async () => {
    const game = client(project.clientKey, { storage: memoryStorage(), retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    await game.auth.anonymous();
    let refusal: unknown;
    // The server's limit is 10 new reports an hour: report distinct players until it answers.
    for (let i = 0; i < 30 && !refusal; i++) {
      const target = await anonymousPlayer(project.clientKey);
      refusal = await game.players.report(target.playerId, { reason: "abuse" }).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(refusal).toBeInstanceOf(GameApiError);
    expect(refusal).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect((refusal as GameApiError).retryAfterSeconds).toBeGreaterThan(0);
  });
});
