import { describe, expect, it } from "vitest";
import { API_RESOURCES } from "@/server/http/endpoints";
import { playerRouteCredentialSuite } from "../support/player-route-suite";

/**
 * The shared credential checks (e2e/support/player-route-suite.ts) for every endpoint the
 * endpoint table marks `auth: "player"` — generated from the table, so a new player endpoint is
 * covered without anyone remembering to list it. Paths get concrete ids; bodies are valid ones,
 * so only the credentials can be what is refused.
 */
const PLAYER_ENDPOINTS = API_RESOURCES.flat().filter((e) => e.auth === "player");

const concrete = (path: string): string =>
  `/api/v1${path}`
    .replace("/players/{id}", "/players/me")
    .replace("/economy/currencies/{id}", "/economy/currencies/coins")
    .replace("/leaderboards/{id}", "/leaderboards/high-scores")
    .replace("{key}", "slot");

/** A valid body per operation that takes one; an endpoint with a body schema missing here fails the first test. */
const BODIES: Record<string, unknown> = {
  addCurrency: { amount: 1 },
  subtractCurrency: { amount: 1 },
  purchase: { purchaseId: "buy-potion" },
  submitScore: { score: 1 },
  patchPlayerData: { set: { a: { value: 1 } } },
  putPlayerData: { value: 1 },
  updatePlayerProfile: { displayName: "Ada" },
  deletePlayerAccount: {},
  verifyEmail: { code: "000000" },
  putSave: { data: 1 },
  validateReceipt: { store: "google", productId: "gems_500", purchaseToken: "token" },
  startSteamOrder: { productId: "gems-500", steamId: "76561197960287930" },
  reportPlayer: { reason: "cheating" },
};

describe("the generated list of player endpoints", () => {
  it("covers every endpoint with auth: player, each with a body sample when it takes a body", () => {
    expect(PLAYER_ENDPOINTS.length).toBeGreaterThanOrEqual(20);
    const withoutSample = PLAYER_ENDPOINTS.filter((e) => e.body !== undefined && !Object.hasOwn(BODIES, e.doc.operationId));
    expect(withoutSample.map((e) => `${e.method} ${e.path}`)).toEqual([]);
    for (const e of PLAYER_ENDPOINTS) expect(concrete(e.path)).not.toMatch(/[{}]/);
  });
});

for (const e of PLAYER_ENDPOINTS) {
  const body = Object.hasOwn(BODIES, e.doc.operationId) ? BODIES[e.doc.operationId] : undefined;
  playerRouteCredentialSuite({ method: e.method, path: concrete(e.path), ...(body === undefined ? {} : { body }) });
}
