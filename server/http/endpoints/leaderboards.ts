import {
  ZLeaderboardPage,
  ZLeaderboardParams,
  ZPageQuery,
  ZPlayerEntry,
  ZRangeQuery,
  ZSubmitResult,
  ZSubmitScoreBody,
} from "../../services/leaderboards/schemas";
import { endpoint } from "../endpoint";
import { ZIdempotencyHeader } from "../idempotency";

const tags = ["leaderboards"];

export const getLeaderboardEndpoint = endpoint({
  method: "GET",
  path: "/leaderboards/{id}",
  auth: "key",
  params: ZLeaderboardParams,
  query: ZPageQuery,
  doc: {
    operationId: "getLeaderboard",
    tags,
    summary: "A page of the leaderboard's current period, best first",
    description:
      "API key only. Ranks are 1-based and unique: equal scores rank by who reached the score first. " +
      "`total` counts the current period's entries; `resetsAt` is when the period ends (UTC). A limited-time board " +
      "answers its window (`startsAt`, `endsAt`) and stays readable after its end.",
    ok: { status: 200, description: "The page.", schema: ZLeaderboardPage },
    errors: ["LEADERBOARD_NOT_FOUND", "VALIDATION_ERROR"],
  },
});

export const submitScoreEndpoint = endpoint({
  method: "POST",
  path: "/leaderboards/{id}/scores",
  auth: "player",
  params: ZLeaderboardParams,
  body: ZSubmitScoreBody,
  idempotent: true,
  doc: {
    operationId: "submitScore",
    tags,
    summary: "Submit a score: the board's operator (best, latest, increment, decrement) is applied atomically",
    description:
      "Out of the board's bounds (for increment / decrement: the resulting score) is 422 SCORE_OUT_OF_RANGE and changes " +
      "nothing. Boards with `clientWritable: false` accept only server keys with X-Player-Id (403 CLIENT_WRITE_FORBIDDEN). " +
      "A limited-time board refuses scores before its `startsAt` and from its `endsAt` (409 LEADERBOARD_NOT_OPEN, the message " +
      "naming the window; `details: {startsAt, endsAt, now}`) and changes nothing. " +
      "`metadata` replaces the stored metadata when the score changes. With `Idempotency-Key`: a repeat with the same body " +
      "within 24 h replays the first answer with `Idempotent-Replayed: true` and changes nothing; another body is 422 " +
      "IDEMPOTENCY_KEY_REUSED; a repeat while the first runs is 409 IDEMPOTENCY_IN_PROGRESS. A request that fails " +
      "changed nothing and is not recorded: its retry runs again.",
    headers: ZIdempotencyHeader,
    ok: { status: 200, description: "The player's entry after the submit.", schema: ZSubmitResult },
    errors: [
      "LEADERBOARD_NOT_FOUND",
      "CLIENT_WRITE_FORBIDDEN",
      "SCORE_OUT_OF_RANGE",
      "LEADERBOARD_NOT_OPEN",
      "IDEMPOTENCY_KEY_REUSED",
      "IDEMPOTENCY_IN_PROGRESS",
    ],
  },
});

export const getPlayerEntryEndpoint = endpoint({
  method: "GET",
  path: "/leaderboards/{id}/player",
  auth: "player",
  params: ZLeaderboardParams,
  query: ZRangeQuery,
  doc: {
    operationId: "getPlayerEntry",
    tags,
    summary: "The player's entry in the current period, optionally with neighbours",
    description: "The bearer's entry, or with a server key the entry of the player named by X-Player-Id.",
    ok: { status: 200, description: "The entry.", schema: ZPlayerEntry },
    errors: ["LEADERBOARD_NOT_FOUND", "ENTRY_NOT_FOUND"],
  },
});

export const leaderboardEndpoints = [getLeaderboardEndpoint, submitScoreEndpoint, getPlayerEntryEndpoint];
