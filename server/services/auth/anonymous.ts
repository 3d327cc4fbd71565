import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { countEvent } from "../../metrics";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import type { SessionDto } from "./schemas";
import { newRefreshToken, refreshExpiry, sessionDto } from "./sessions";

/**
 * A new player with a new session, every call. One statement writes the player, its session
 * and the refresh token's hash (a game's launch-day spike lands here).
 */
export async function signInAnonymously({ projectId }: { projectId: string }): Promise<SessionDto> {
  const refresh = newRefreshToken();
  const playerId = uuidv7();
  const sessionId = uuidv7();
  const insertPlayer = () =>
    pool().query({
      name: "anonymous-sign-in",
      text: `WITH player AS (
             INSERT INTO players (id, project_id, last_login_at, updated_at) VALUES ($1, $2, now(), now())
           ), session AS (
             INSERT INTO sessions (id, project_id, player_id, expires_at) VALUES ($3, $2, $1, $4)
           )
           INSERT INTO refresh_tokens (id, session_id, token_hash) VALUES ($5, $3, $6)`,
      values: [playerId, projectId, sessionId, refreshExpiry(), uuidv7(), Buffer.from(refresh.hash)],
    });
  await withEvents(projectId, async (emitting) => {
    await insertPlayer();
    if (!emitting) return;
    await emitEvent({ projectId, type: "player.created", playerId, data: { playerId, method: "anonymous" } });
    await emitEvent({ projectId, type: "player.signed_in", playerId, data: { playerId, method: "anonymous" } });
  });
  countEvent("sign_in", "anonymous");
  countEvent("new_player", "anonymous");
  return sessionDto({ projectId, playerId, sessionId, refreshToken: refresh.token, created: true });
}
