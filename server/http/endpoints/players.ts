import { z } from "zod";
import { ZDeleteAccountBody, ZPlayerExport, ZPlayerParams } from "../../services/players/schemas";
import { ZOwnProfile, ZPatchProfileBody, ZPublicProfile } from "../../services/profiles/schemas";
import { endpoint } from "../endpoint";

const tags = ["players"];

export const getProfileEndpoint = endpoint({
  method: "GET",
  path: "/players/{id}",
  auth: "player",
  params: ZPlayerParams,
  doc: {
    operationId: "getPlayerProfile",
    tags,
    summary: "A player's profile: the caller's own (`me`) in full, another player's as others see it",
    description: "Another project's player, or an unknown id, is 404 PLAYER_NOT_FOUND.",
    ok: { status: 200, description: "The profile.", schema: z.union([ZOwnProfile, ZPublicProfile]) },
  },
});

export const updateProfileEndpoint = endpoint({
  method: "PATCH",
  path: "/players/{id}",
  auth: "player",
  params: ZPlayerParams,
  body: ZPatchProfileBody,
  doc: {
    operationId: "updatePlayerProfile",
    tags,
    summary: "Set or clear the caller's display name",
    description: "Only the caller's own profile (`me` or their id); another player's is 403 FORBIDDEN.",
    ok: { status: 200, description: "The caller's profile after the change.", schema: ZOwnProfile },
  },
});

export const deleteAccountEndpoint = endpoint({
  method: "DELETE",
  path: "/players/{id}",
  auth: "player",
  params: ZPlayerParams,
  body: ZDeleteAccountBody,
  bannedMayAct: true,
  doc: {
    operationId: "deletePlayerAccount",
    tags,
    summary: "Delete the caller's account and everything it owns",
    description:
      "Removes the player and, in one transaction, their sessions and refresh tokens, identities, data, saves, leaderboard entries " +
      "(of every period: the players behind move up), balances, inventory, ledger and idempotency records; every session ends. " +
      "A player with a password (an e-mail account) sends it as `{password}`: missing or wrong is 401 INVALID_CREDENTIALS and " +
      "nothing changes; wrong passwords count against the e-mail login's failure budgets (429 with `details.scope` " +
      "`login-account-ip`, `login-ip` or `login-account`, 503 when the rate-limit store is down). A player without one sends no body (or `{}`). A server key acting as the player (X-Player-Id) needs no " +
      "password, also when the player is banned (a data-subject right: a ban ends the player's own sessions). Only the caller's own account (`me` or their id); another player's is 403 FORBIDDEN. A request of the player " +
      "still running when the deletion commits answers 404 PLAYER_NOT_FOUND and writes nothing. The project may keep the " +
      "ledger rows for its accounts, detached from the player (keepLedgerOfDeletedPlayers, set by operators).",
    bodyOptional: true,
    ok: { status: 204, description: "Deleted. The access and refresh tokens are refused from now on." },
    errors: ["INVALID_CREDENTIALS", "FORBIDDEN", "PLAYER_NOT_FOUND"],
  },
});

export const exportAccountEndpoint = endpoint({
  method: "GET",
  path: "/players/{id}/export",
  auth: "player",
  params: ZPlayerParams,
  bannedMayAct: true,
  doc: {
    operationId: "exportPlayerData",
    tags,
    summary: "Everything the project holds about the caller, as one JSON document",
    description:
      "Profile (with the e-mail), identities, every data key of every visibility with its value, saves with their data, " +
      "leaderboard entries of current and archived periods, balances, inventory, the whole ledger, the sessions and the " +
      "experiment assignments — never a " +
      "password hash, token or token hash. Only the caller's own (`me` or their id); another player's is 403 FORBIDDEN. " +
      "A server key acting as the player (X-Player-Id) gets it also when the player is banned (a data-subject right: a ban ends " +
      "the player's own sessions). Operators download the same document from the player's page in the dashboard.",
    ok: { status: 200, description: "The export.", schema: ZPlayerExport },
    errors: ["FORBIDDEN"],
  },
});

export const playerEndpoints = [getProfileEndpoint, updateProfileEndpoint, deleteAccountEndpoint, exportAccountEndpoint];
