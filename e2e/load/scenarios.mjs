// The scenarios of `npm run bench`. Each names what it measures, the status every answer must
// have, the goal as a share of the bare route (null where none is set), optionally its own
// number of connections, and a setup that
// prepares its data and returns the autocannon request (method, path, headers, body,
// setupClient for per-connection headers). Add a domain's scenarios here.

import { refreshTokenOf, VOLUME, VOLUME_BOARD } from "./seed-volume.mjs";

const json = { "Content-Type": "application/json" };
/** {"value":{"blob":"…"}} with a 1 KiB value, as a game's profile blob. */
const KIB_VALUE = JSON.stringify({ value: { blob: "x".repeat(1024 - 11) } });

/** One anonymous player per connection, so writes of different connections never queue on one player. */
export async function players(product, count) {
  const tokens = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${product.baseUrl}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": product.demo.apiKey } });
    if (res.status !== 200) throw new Error(`bench setup: anonymous sign-in answered ${res.status}: ${await res.text()}`);
    tokens.push(await res.json());
  }
  return tokens;
}

async function putProfiles(product, sessions) {
  for (const s of sessions) {
    const res = await fetch(`${product.baseUrl}/api/v1/players/me/data/profile`, {
      method: "PUT",
      headers: { ...json, "X-API-Key": product.demo.apiKey, Authorization: `Bearer ${s.accessToken}` },
      body: KIB_VALUE,
    });
    if (res.status !== 201) throw new Error(`bench setup: data PUT answered ${res.status}`);
  }
}

/** Gives each autocannon connection its own player's bearer token. */
export function perPlayer(product, sessions, extra = {}) {
  let next = 0;
  return (client) => {
    const session = sessions[next++ % sessions.length];
    client.setHeaders({ "X-API-Key": product.demo.apiKey, Authorization: `Bearer ${session.accessToken}`, ...extra });
  };
}

/** Each connection's player submits once to the demo's high-score board, so it has an entry. */
async function withEntries(product, sessions) {
  for (const [i, s] of sessions.entries()) {
    const res = await fetch(`${product.baseUrl}/api/v1/leaderboards/high-scores/scores`, {
      method: "POST",
      headers: { ...json, "X-API-Key": product.demo.apiKey, Authorization: `Bearer ${s.accessToken}` },
      body: JSON.stringify({ score: 1000 + i }),
    });
    if (res.status !== 200) throw new Error(`bench setup: score submit answered ${res.status}: ${await res.text()}`);
  }
}

/** Funds each player with coins up to the demo currency's max (a server key acting for the player). */
async function fund(product, sessions) {
  for (const s of sessions) {
    const res = await fetch(`${product.baseUrl}/api/v1/economy/currencies/coins/add`, {
      method: "POST",
      headers: { ...json, "X-API-Key": product.demo.serverApiKey, "X-Player-Id": s.playerId },
      body: JSON.stringify({ amount: 999_900 }),
    });
    if (res.status !== 200) throw new Error(`bench setup: funding answered ${res.status}: ${await res.text()}`);
  }
}

const BUY_POTION = JSON.stringify({ purchaseId: "buy-potion" });

/** A new random score per request (a `best` board: some improve, most are kept). */
const randomScore = () => [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ score: Math.floor(Math.random() * 1e6) }) }) }];

export const scenarios = [
  {
    name: "health",
    title: "`GET /api/health` (SELECT 1 + limiter ping, no key)",
    setup: async () => ({ path: "/api/health", expect: 200 }),
  },
  {
    name: "key-limit-reply",
    title: "key + limiter + JSON reply (`GET /auth/anonymous` → 405)",
    goal: 0.92,
    setup: async (product) => ({ path: "/api/v1/auth/anonymous", headers: { "X-API-Key": product.demo.apiKey }, expect: 405 }),
  },
  {
    name: "anonymous-sign-in",
    title: "`POST /auth/anonymous` (player + session + refresh token)",
    goal: 0.7,
    setup: async (product) => ({
      method: "POST",
      path: "/api/v1/auth/anonymous",
      headers: { "X-API-Key": product.demo.apiKey },
      expect: 200,
    }),
  },
  {
    name: "data-get",
    title: "`GET /players/me/data/profile` (1 KiB, bearer)",
    goal: 0.8,
    setup: async (product, { connections }) => {
      const sessions = await players(product, connections);
      await putProfiles(product, sessions);
      return { path: "/api/v1/players/me/data/profile", setupClient: perPlayer(product, sessions), expect: 200 };
    },
  },
  {
    // The project's remote config definitions are cached per process: without audience overrides
    // or running experiments this is the bearer check plus hashing the answer, no query.
    name: "config",
    title: "`GET /config` (remote config, bearer, cached definitions)",
    goal: 0.8,
    setup: async (product, { connections }) => {
      const sessions = await players(product, connections);
      return { path: "/api/v1/config", setupClient: perPlayer(product, sessions), expect: 200 };
    },
  },
  {
    name: "data-put",
    title: "`PUT /players/me/data/profile` (1 KiB, bearer)",
    goal: 0.6,
    setup: async (product, { connections }) => {
      const sessions = await players(product, connections);
      await putProfiles(product, sessions); // every measured PUT is an update (200)
      return {
        method: "PUT",
        path: "/api/v1/players/me/data/profile",
        body: KIB_VALUE,
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
  {
    name: "email-login",
    title: "`POST /auth/email/login` (argon2id verify, by design slow)",
    // Two argon2 hashes run at once per instance; more connections only queue (and at 50
    // attempts in flight from one address the login-ip budget refuses, by design).
    connections: 8,
    setup: async (product, { connections }) => {
      // One account per connection: parallel logins of one account queue on its attempt budget.
      const headers = { ...json, "X-API-Key": product.demo.apiKey };
      const bodies = [];
      for (let i = 0; i < connections; i++) {
        const body = JSON.stringify({ email: `bench-${Date.now()}-${i}@example.com`, password: "long enough bench passphrase 7" });
        const res = await fetch(`${product.baseUrl}/api/v1/auth/email/register`, { method: "POST", headers, body });
        if (res.status !== 200) throw new Error(`bench setup: register answered ${res.status}: ${await res.text()}`);
        bodies.push(body);
      }
      let next = 0;
      const setupClient = (client) => client.setBody(bodies[next++ % bodies.length]);
      return { method: "POST", path: "/api/v1/auth/email/login", headers, body: bodies[0], setupClient, expect: 200 };
    },
  },
  {
    name: "score-submit",
    title: "`POST /leaderboards/high-scores/scores` (best, random scores, bearer)",
    setup: async (product, { connections }) => {
      const sessions = await players(product, connections);
      return {
        method: "POST",
        path: "/api/v1/leaderboards/high-scores/scores",
        body: JSON.stringify({ score: 1 }),
        requests: randomScore(),
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
  {
    name: "own-rank",
    title: "`GET /leaderboards/high-scores/player?range=5` (own rank + neighbours)",
    setup: async (product, { connections }) => {
      const sessions = await players(product, connections);
      await withEntries(product, sessions);
      return { path: "/api/v1/leaderboards/high-scores/player?range=5", setupClient: perPlayer(product, sessions), expect: 200 };
    },
  },
  {
    name: "top-25",
    title: "`GET /leaderboards/high-scores?limit=25` (top 25, key only)",
    setup: async (product) => ({
      path: "/api/v1/leaderboards/high-scores?limit=25",
      headers: { "X-API-Key": product.demo.apiKey },
      expect: 200,
    }),
  },
  {
    name: "purchase-many",
    title: "`POST /economy/purchase` buy-potion, one player per connection",
    setup: async (product, { connections }) => {
      const sessions = await players(product, connections);
      await fund(product, sessions);
      return {
        method: "POST",
        path: "/api/v1/economy/purchase",
        body: BUY_POTION,
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
  {
    name: "purchase-hot",
    title: "`POST /economy/purchase` buy-potion, one hot player on every connection",
    setup: async (product) => {
      const sessions = await players(product, 1);
      await fund(product, sessions);
      return {
        method: "POST",
        path: "/api/v1/economy/purchase",
        body: BUY_POTION,
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
];

// ---- The volume scenarios (`npm run bench`): on the seeded bench project (e2e/load/seed-volume.mjs:
// 1,000,000 players, the first 100,000 with data, wallets and a session; a 1,000,000-entry board).

/**
 * Seeded players not used yet, by number, per project (several products in turn may share one
 * database and project). Each refresh token is presented once: a scenario or a request takes
 * players off this counter and never gives them back.
 */
const volumeCursor = new Map();
function takePlayers(projectId, count) {
  const from = volumeCursor.get(projectId) ?? 1;
  if (from + count - 1 > VOLUME.players) throw new Error(`bench: the ${VOLUME.players} seeded players are used up`);
  volumeCursor.set(projectId, from + count);
  return Array.from({ length: count }, (_, i) => from + i);
}

/** Bearer sessions of `count` seeded players (their seeded refresh token exchanged once each). */
export async function volumeSessions(product, count) {
  const sessions = [];
  for (const n of takePlayers(product.volume.projectId, count)) {
    const res = await fetch(`${product.baseUrl}/api/v1/auth/refresh`, {
      method: "POST",
      headers: { ...json, "X-API-Key": product.demo.apiKey },
      body: JSON.stringify({ refreshToken: refreshTokenOf(n) }),
    });
    if (res.status !== 200) throw new Error(`bench setup: refresh of seeded player ${n} answered ${res.status}: ${await res.text()}`);
    sessions.push(await res.json());
  }
  return sessions;
}

/** A fresh (never presented) seeded refresh token per call, as a request body. */
function freshRefreshBodies(product, reserve) {
  const numbers = takePlayers(product.volume.projectId, reserve);
  let next = 0;
  return () => {
    // Past the reserve, tokens repeat: the server answers those as reuse (401), counted as errors.
    const n = numbers[next++ % numbers.length];
    return JSON.stringify({ refreshToken: refreshTokenOf(n) });
  };
}

const board = `/api/v1/leaderboards/${VOLUME_BOARD}`;
/** A 64 KiB save (serialised): a game's state blob. */
const SAVE_64K = JSON.stringify({ data: { level: 7, state: "s".repeat(64 * 1024 - 32) } });
const SAVE_PATH = "/api/v1/saves/slot-1";

async function putSaves(product, sessions) {
  for (const s of sessions) {
    const res = await fetch(`${product.baseUrl}${SAVE_PATH}`, {
      method: "PUT",
      headers: { ...json, "X-API-Key": product.demo.apiKey, Authorization: `Bearer ${s.accessToken}` },
      body: SAVE_64K,
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`bench setup: save PUT answered ${res.status}: ${await res.text()}`);
  }
}

/**
 * The realistic mix, by weight (of 100): reads dominate, as in a game's session — data GET 25,
 * own rank 20, top 25 15, score submit 12, data PUT 10, purchase 8, refresh 5, save PUT (64 KiB)
 * 3, anonymous sign-in 2. Each request picks its kind at random by weight and a random player
 * of a pool of 1,000 seeded players (their data, wallets and board entries already exist).
 */
export const MIX_WEIGHTS = [
  ["data GET", 25],
  ["own rank", 20],
  ["top 25", 15],
  ["score submit", 12],
  ["data PUT", 10],
  ["purchase", 8],
  ["refresh", 5],
  ["save PUT", 3],
  ["anonymous sign-in", 2],
];
const MIX_PLAYERS = 1_000;

async function mixSpec(product, { refreshReserve }) {
  const sessions = await volumeSessions(product, MIX_PLAYERS);
  await putSaves(product, sessions);
  const refreshBody = freshRefreshBodies(product, refreshReserve);
  const key = { "X-API-Key": product.demo.apiKey };
  const bearer = () => ({ ...key, Authorization: `Bearer ${sessions[Math.floor(Math.random() * sessions.length)].accessToken}` });
  const build = {
    "data GET": () => ({ method: "GET", path: "/api/v1/players/me/data/profile", headers: bearer() }),
    "own rank": () => ({ method: "GET", path: `${board}/player?range=5`, headers: bearer() }),
    "top 25": () => ({ method: "GET", path: `${board}?limit=25`, headers: key }),
    "score submit": () => ({
      method: "POST",
      path: `${board}/scores`,
      headers: { ...bearer(), ...json },
      body: JSON.stringify({ score: Math.floor(Math.random() * 1e6) }),
    }),
    "data PUT": () => ({ method: "PUT", path: "/api/v1/players/me/data/profile", headers: { ...bearer(), ...json }, body: KIB_VALUE }),
    purchase: () => ({ method: "POST", path: "/api/v1/economy/purchase", headers: { ...bearer(), ...json }, body: BUY_POTION }),
    refresh: () => ({ method: "POST", path: "/api/v1/auth/refresh", headers: { ...key, ...json }, body: refreshBody() }),
    "save PUT": () => ({ method: "PUT", path: SAVE_PATH, headers: { ...bearer(), ...json }, body: SAVE_64K }),
    "anonymous sign-in": () => ({ method: "POST", path: "/api/v1/auth/anonymous", headers: key }),
  };
  const total = MIX_WEIGHTS.reduce((n, [, w]) => n + w, 0);
  const pick = () => {
    let r = Math.random() * total;
    for (const [name, w] of MIX_WEIGHTS) {
      r -= w;
      if (r < 0) return build[name]();
    }
    return build[MIX_WEIGHTS[0][0]]();
  };
  return {
    path: "/api/v1/players/me/data/profile",
    requests: [{ setupRequest: (req) => ({ ...req, body: undefined, ...pick() }) }],
    // data PUT and save PUT update existing keys (200); sign-in and refresh answer 200.
    expect: [200, 201],
  };
}

/**
 * Volume scenarios. The refresh scenario reserves 25,000 never-used tokens (warm-up, measured run
 * and the half-rate run: ~7,000 at the ~570 req/s seen on 2 cores). Past them tokens repeat,
 * and a repeat after the grace window is refused as reuse (401): the run counts it as an error.
 */
export const volumeScenarios = [
  {
    name: "anonymous-sign-in",
    title: "`POST /auth/anonymous` (new player + session + refresh token)",
    setup: async (product) => ({
      method: "POST",
      path: "/api/v1/auth/anonymous",
      headers: { "X-API-Key": product.demo.apiKey },
      expect: 200,
    }),
  },
  {
    name: "refresh",
    title: "`POST /auth/refresh` (rotation: a never-used token per request)",
    setup: async (product) => {
      const body = freshRefreshBodies(product, 25_000);
      return {
        method: "POST",
        path: "/api/v1/auth/refresh",
        headers: { ...json, "X-API-Key": product.demo.apiKey },
        body: body(),
        requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
        expect: 200,
      };
    },
  },
  {
    name: "data-get",
    title: "`GET /players/me/data/profile` (1 KiB, bearer)",
    setup: async (product, { connections }) => {
      const sessions = await volumeSessions(product, connections);
      return { path: "/api/v1/players/me/data/profile", setupClient: perPlayer(product, sessions), expect: 200 };
    },
  },
  {
    name: "data-put",
    title: "`PUT /players/me/data/profile` (1 KiB update, bearer)",
    setup: async (product, { connections }) => {
      const sessions = await volumeSessions(product, connections);
      return {
        method: "PUT",
        path: "/api/v1/players/me/data/profile",
        body: KIB_VALUE,
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
  {
    name: "save-put",
    title: "`PUT /saves/slot-1` (64 KiB update, bearer)",
    setup: async (product, { connections }) => {
      const sessions = await volumeSessions(product, connections);
      await putSaves(product, sessions); // every measured PUT is an update (200)
      return { method: "PUT", path: SAVE_PATH, body: SAVE_64K, setupClient: perPlayer(product, sessions, json), expect: 200 };
    },
  },
  {
    name: "score-submit",
    title: "`POST /leaderboards/volume/scores` (1M entries, best, random scores)",
    setup: async (product, { connections }) => {
      const sessions = await volumeSessions(product, connections);
      return {
        method: "POST",
        path: `${board}/scores`,
        body: JSON.stringify({ score: 1 }),
        requests: randomScore(),
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
  {
    name: "own-rank",
    title: "`GET /leaderboards/volume/player?range=5` (own rank at 1M + neighbours)",
    goal: 0.5,
    setup: async (product, { connections }) => {
      const sessions = await volumeSessions(product, connections);
      return { path: `${board}/player?range=5`, setupClient: perPlayer(product, sessions), expect: 200 };
    },
  },
  {
    name: "top-25",
    title: "`GET /leaderboards/volume?limit=25` (top 25 of 1M, key only)",
    setup: async (product) => ({ path: `${board}?limit=25`, headers: { "X-API-Key": product.demo.apiKey }, expect: 200 }),
  },
  {
    name: "purchase",
    title: "`POST /economy/purchase` buy-potion (funded wallets, one player per connection)",
    goal: 0.4,
    setup: async (product, { connections }) => {
      const sessions = await volumeSessions(product, connections);
      return {
        method: "POST",
        path: "/api/v1/economy/purchase",
        body: BUY_POTION,
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      };
    },
  },
  {
    name: "mix",
    title: "realistic mix (weights in the README; 1,000 players)",
    goal: 0.5,
    // A longer run (npm run bench:webhooks) asks for more never-presented refresh tokens.
    setup: (product, { refreshReserve = 3_000 } = {}) => mixSpec(product, { refreshReserve }),
  },
];
