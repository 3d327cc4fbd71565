import { sha256, uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { type ClientInfo, NO_CLIENT_INFO } from "../../identity/client-info";
import { assertNotBanned } from "../../identity/player";
import { countEvent } from "../../metrics";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import type { SessionDto } from "./schemas";
import { issueSession, newRefreshToken, refreshExpiry, sessionDto } from "./sessions";

/**
 * Without a device secret: a new player with a new session, every call. With one: the player that
 * secret created (a new session; `created: false`), or a new player bound to it.
 *
 * The secret is stored as its plain SHA-256: it carries 256+ random bits, so the hash cannot be
 * reversed or guessed (a key, as for passwords, only helps low-entropy input), and a lookup by
 * hash keeps working when the server's secrets rotate.
 */
export async function signInAnonymously({
  projectId,
  deviceSecret,
  client = NO_CLIENT_INFO,
}: {
  projectId: string;
  deviceSecret?: string;
  client?: ClientInfo;
}): Promise<SessionDto> {
  if (deviceSecret === undefined) {
    const session = await createAnonymous(projectId, null, client);
    if (!session) throw new Error("an anonymous sign-in without a device secret wrote nothing");
    return session;
  }
  const secretHash = Buffer.from(sha256(deviceSecret));
  // Two devices presenting one new secret at once: one insert wins, the other finds its player.
  for (let attempt = 0; attempt < 2; attempt++) {
    const created = await createAnonymous(projectId, secretHash, client);
    if (created) return created;
    const found = await devicePlayer(projectId, secretHash);
    if (found) {
      if (found.upgraded) {
        throw new AppError("ACCOUNT_ALREADY_LINKED", {
          message: "This device's player has an e-mail or identity-provider account now; sign in with it.",
        });
      }
      assertNotBanned({ bannedAt: found.banned_at, bannedUntil: found.banned_until, banReason: found.ban_reason });
      await pool().query({
        name: "anonymous-device-login",
        text: "UPDATE players SET last_login_at = now() WHERE id = $1",
        values: [found.id],
      });
      return issueSession({ projectId, playerId: found.id, created: false, method: "anonymous", client });
    }
    // The player was deleted between the insert and the lookup: its secret went with it; try again.
  }
  throw new Error("a device credential was neither created nor found twice");
}

/**
 * One statement writes the player, its session and the refresh token's hash (a game's launch-day
 * spike lands here) — and, with a secret, the device credential first: when that secret is
 * already taken nothing at all is written and the answer is null.
 */
async function createAnonymous(projectId: string, secretHash: Buffer | null, client: ClientInfo): Promise<SessionDto | null> {
  const refresh = newRefreshToken();
  const playerId = uuidv7();
  const sessionId = uuidv7();
  const values = [
    playerId,
    projectId,
    sessionId,
    refreshExpiry(),
    uuidv7(),
    Buffer.from(refresh.hash),
    client.clientVersion,
    client.platform,
    client.country,
  ];
  const insertPlayer = () =>
    secretHash === null
      ? pool().query({
          name: "anonymous-sign-in",
          text: `WITH player AS (
             INSERT INTO players (id, project_id, last_login_at, updated_at, last_seen_at, client_version, platform, country)
             VALUES ($1, $2, now(), now(), now(), $7, $8, $9)
           ), session AS (
             INSERT INTO sessions (id, project_id, player_id, expires_at, client_version, platform) VALUES ($3, $2, $1, $4, $7, $8)
           )
           INSERT INTO refresh_tokens (id, session_id, token_hash) VALUES ($5, $3, $6)`,
          values,
        })
      : pool().query({
          name: "anonymous-device-sign-up",
          text: `WITH device AS (
             INSERT INTO device_credentials (project_id, secret_hash, player_id) VALUES ($2, $10, $1)
             ON CONFLICT (project_id, secret_hash) DO NOTHING RETURNING player_id
           ), player AS (
             INSERT INTO players (id, project_id, last_login_at, updated_at, last_seen_at, client_version, platform, country)
             SELECT player_id, $2, now(), now(), now(), $7, $8, $9 FROM device
           ), session AS (
             INSERT INTO sessions (id, project_id, player_id, expires_at, client_version, platform) SELECT $3, $2, player_id, $4, $7, $8 FROM device
           )
           INSERT INTO refresh_tokens (id, session_id, token_hash) SELECT $5, $3, $6 FROM device`,
          values: [...values, secretHash],
        });
  const inserted = await withEvents(projectId, async (emitting) => {
    const { rowCount } = await insertPlayer();
    if (rowCount === 0) return false;
    if (!emitting) return true;
    await emitEvent({ projectId, type: "player.created", playerId, data: { playerId, method: "anonymous" } });
    await emitEvent({ projectId, type: "player.signed_in", playerId, data: { playerId, method: "anonymous" } });
    return true;
  });
  if (!inserted) return null;
  countEvent("sign_in", "anonymous");
  countEvent("new_player", "anonymous");
  return sessionDto({ projectId, playerId, sessionId, refreshToken: refresh.token, created: true });
}

type DevicePlayer = {
  id: string;
  banned_at: Date | null;
  banned_until: Date | null;
  ban_reason: string | null;
  /** Signed up with an e-mail or an identity provider since: the device no longer signs it in. */
  upgraded: boolean;
};

async function devicePlayer(projectId: string, secretHash: Buffer): Promise<DevicePlayer | undefined> {
  const { rows } = await pool().query<DevicePlayer>({
    name: "anonymous-device-player",
    text: `SELECT p.id, p.banned_at, p.banned_until, p.ban_reason,
                  (p.email IS NOT NULL OR EXISTS (SELECT 1 FROM identities i WHERE i.player_id = p.id)) AS upgraded
             FROM device_credentials d JOIN players p ON p.id = d.player_id
            WHERE d.project_id = $1 AND d.secret_hash = $2`,
    values: [projectId, secretHash],
  });
  return rows[0];
}
