// The scenarios of `npm run bench`. Each names what it measures, the status every answer must
// have, the goal as a share of the bare route (null where none is set), optionally its own
// number of connections, and a setup that
// prepares its data and returns the autocannon request (method, path, headers, body,
// setupClient for per-connection headers). Add a domain's scenarios here.

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
