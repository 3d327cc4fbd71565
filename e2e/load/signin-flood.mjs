// `node e2e/load/signin-flood.mjs`: the production build (`npm start`, default WEB_CONCURRENCY,
// in-process limiter, TRUST_PROXY so each request names its client in X-Forwarded-For) under a
// flood of wrong sign-ins from rotating IPv6 /64s, while good clients sign in and play:
// - flood: FLOOD_RATE wrong sign-ins per second for DURATION_S seconds, each from a new /64;
//   three in four on the players' e-mail login (unknown addresses), one in four on the operator
//   dashboard's Credentials sign-in;
// - correct sign-ins: GOOD_PLAYERS players and GOOD_OPERATORS dashboard sign-ins of the demo
//   admin, spread over the flood, each from the address it signed in from before the flood;
// - game traffic: GAME_RATE requests per second (player data GET and PUT, bearer tokens).
// Prints what got through as a Markdown table. Loopback only; bounded: every request times out
// after 15 s, the whole run is cut off after 12 minutes (plus the build when sources changed).
// Its own database on the local Postgres (DATABASE_URL's server, default 127.0.0.1:5432),
// dropped at the end.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { ensureBuild, startProxiedProduct } from "./lib.mjs";

const DURATION_S = Number(process.env.FLOOD_DURATION_S ?? 30);
const FLOOD_RATE = Number(process.env.FLOOD_RATE ?? 16);
const GAME_RATE = 20;
const GOOD_PLAYERS = 10;
const GOOD_OPERATORS = 10;
const REQUEST_TIMEOUT_MS = 15_000;
const RUN_LIMIT_MS = 12 * 60_000;

const log = (m) => process.stderr.write(`[signin-flood] ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function request(base, { method = "GET", path, headers = {}, body, form }) {
  return new Promise((resolve) => {
    const start = performance.now();
    const payload = form ? new URLSearchParams(form).toString() : body === undefined ? undefined : JSON.stringify(body);
    const h = { ...headers };
    if (payload !== undefined) {
      h["content-type"] = form ? "application/x-www-form-urlencoded" : "application/json";
      h["content-length"] = Buffer.byteLength(payload);
    }
    let settled = false;
    const done = (r) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, ms: performance.now() - start });
    };
    const req = http.request(`${base}${path}`, { method, headers: h }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json;
        try {
          json = JSON.parse(text);
        } catch {}
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json, cookies: res.headers["set-cookie"] ?? [] });
      });
      res.on("error", () => done({ status: 0 }));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error("timeout")));
    req.on("error", () => done({ status: 0 }));
    req.end(payload);
  });
}

const pairs = (cookies = []) => cookies.map((c) => c.split(";")[0]);

/** The dashboard's sign-in as a browser does it: CSRF token, then the credentials form. Answers the status and whether a session came back. */
async function operatorSignIn(base, email, password, ip) {
  const csrf = await request(base, { path: "/api/auth/csrf", headers: { "X-Forwarded-For": ip } });
  if (csrf.status !== 200 || !csrf.json?.csrfToken) return { status: csrf.status, ok: false, ms: csrf.ms };
  const r = await request(base, {
    method: "POST",
    path: "/api/auth/callback/credentials",
    headers: { Cookie: pairs(csrf.cookies).join("; "), "X-Forwarded-For": ip },
    form: { csrfToken: csrf.json.csrfToken, email, password, json: "true" },
  });
  const ok = pairs(r.cookies).some((c) => c.includes("session-token="));
  // next-auth answers a refused sign-in with a redirect (or 401) naming the error in its URL.
  const error = ok ? null : (/[?&]error=([^&"]+)/.exec(String(r.headers?.location ?? r.text))?.[1] ?? null);
  return { status: r.status, ok, error, ms: csrf.ms + r.ms };
}

const playerLogin = (base, apiKey, email, password, ip) =>
  request(base, {
    method: "POST",
    path: "/api/v1/auth/email/login",
    headers: { "X-API-Key": apiKey, "X-Forwarded-For": ip },
    body: { email, password },
  });

let v6 = 0;
/** A new /64 each call (2001:db8:<n>:<m>::/64, documentation prefix). */
const nextV6 = () => {
  v6 += 1;
  return `2001:db8:${(v6 >> 16).toString(16)}:${(v6 & 0xffff).toString(16)}::${randomBytes(2).toString("hex")}`;
};

const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : Number.NaN);
const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

async function main() {
  let product;
  const cutOff = setTimeout(() => {
    log(`run limit of ${RUN_LIMIT_MS / 60_000} min reached: stopping`);
    void (product?.stop() ?? Promise.resolve()).finally(() => process.exit(2));
  }, RUN_LIMIT_MS);
  try {
    ensureBuild();
    product = await startProxiedProduct("signin_flood");
    const base = product.baseUrl;
    const { apiKey, operatorEmail, operatorPassword } = product.demo;
    const workers = process.env.WEB_CONCURRENCY ?? "default (one per core)";
    log(`app ready at ${base} (in-process limiter, WEB_CONCURRENCY ${workers})`);

    // Good clients, each signed in once from its own address before the flood.
    const players = [];
    for (let i = 0; i < GOOD_PLAYERS; i++) {
      const email = `flood-good-${i}-${randomBytes(3).toString("hex")}@example.com`;
      const password = randomBytes(12).toString("base64url");
      const ip = `203.0.113.${10 + i}`;
      const reg = await request(base, {
        method: "POST",
        path: "/api/v1/auth/email/register",
        headers: { "X-API-Key": apiKey, "X-Forwarded-For": ip },
        body: { email, password },
      });
      if (reg.status !== 200) throw new Error(`setup: register answered ${reg.status} ${reg.text}`);
      const first = await playerLogin(base, apiKey, email, password, ip);
      if (first.status !== 200) throw new Error(`setup: first login answered ${first.status} ${first.text}`);
      players.push({ email, password, ip });
    }
    const operatorIp = "203.0.113.200";
    const first = await operatorSignIn(base, operatorEmail, operatorPassword, operatorIp);
    if (!first.ok) throw new Error(`setup: the admin's first sign-in answered ${first.status}`);
    const gamers = [];
    for (let i = 0; i < 8; i++) {
      const r = await request(base, {
        method: "POST",
        path: "/api/v1/auth/anonymous",
        headers: { "X-API-Key": apiKey, "X-Forwarded-For": `198.51.100.${i + 1}` },
      });
      if (r.status !== 200) throw new Error(`setup: anonymous sign-in answered ${r.status} ${r.text}`);
      gamers.push({ headers: { "X-API-Key": apiKey, Authorization: `Bearer ${r.json.accessToken}` }, id: r.json.playerId });
    }
    log(`seeded ${GOOD_PLAYERS} players and ${gamers.length} game players; flood ${FLOOD_RATE}/s for ${DURATION_S} s`);

    const floodStatuses = new Map();
    const playerOutcomes = new Map();
    const operatorOutcomes = new Map();
    const gameStatuses = new Map();
    const gameLatencies = [];
    let playersOk = 0;
    let operatorsOk = 0;
    const pending = [];
    const started = performance.now();
    const at = (seconds) => sleep(Math.max(0, started + seconds * 1000 - performance.now()));

    // The flood.
    for (let i = 0; i < FLOOD_RATE * DURATION_S; i++) {
      pending.push(
        at(i / FLOOD_RATE).then(async () => {
          const email = `nobody-${randomBytes(4).toString("hex")}@example.com`;
          if (i % 4 === 3) {
            const r = await operatorSignIn(base, email, "wrong-password", nextV6());
            count(floodStatuses, `dashboard ${r.status}${r.error ? ` (${r.error})` : ""}`);
          } else {
            const r = await playerLogin(base, apiKey, email, "wrong-password", nextV6());
            count(floodStatuses, `player ${r.status}${r.json?.error?.code ? ` ${r.json.error.code}` : ""}`);
          }
        }),
      );
    }
    // Correct sign-ins, spread over the flood (starting after its first second).
    players.forEach((p, i) => {
      pending.push(
        at(1 + (i * (DURATION_S - 2)) / GOOD_PLAYERS).then(async () => {
          const r = await playerLogin(base, apiKey, p.email, p.password, p.ip);
          if (r.status === 200) playersOk += 1;
          count(playerOutcomes, `${r.status}${r.json?.error?.code ? ` ${r.json.error.code}` : ""}`);
        }),
      );
    });
    for (let i = 0; i < GOOD_OPERATORS; i++) {
      pending.push(
        at(1.5 + (i * (DURATION_S - 2)) / GOOD_OPERATORS).then(async () => {
          const r = await operatorSignIn(base, operatorEmail, operatorPassword, operatorIp);
          if (r.ok) operatorsOk += 1;
          count(operatorOutcomes, r.ok ? "signed in" : `${r.status}${r.error ? ` (${r.error})` : ""}`);
        }),
      );
    }
    // Game traffic: data PUT and GET in turn.
    for (let i = 0; i < GAME_RATE * DURATION_S; i++) {
      const g = gamers[Math.floor(i / 2) % gamers.length]; // each game player's PUT, then its GET
      pending.push(
        at(i / GAME_RATE).then(async () => {
          const r =
            i % 2 === 0
              ? await request(base, {
                  method: "PUT",
                  path: `/api/v1/players/${g.id}/data/progress`,
                  headers: g.headers,
                  body: { value: { i } },
                })
              : await request(base, { path: `/api/v1/players/${g.id}/data/progress`, headers: g.headers });
          count(gameStatuses, String(r.status));
          if (r.status === 200 || r.status === 201) gameLatencies.push(r.ms);
        }),
      );
    }
    await Promise.all(pending);
    const elapsed = (performance.now() - started) / 1000;
    gameLatencies.sort((a, b) => a - b);
    const fmt = (map) =>
      [...map]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join("; ");
    const gameTotal = GAME_RATE * DURATION_S;
    const lines = [
      `| what | result |`,
      `|---|---|`,
      `| correct player sign-ins (e-mail login, known address) accepted | ${playersOk} of ${GOOD_PLAYERS} (${fmt(playerOutcomes)}) |`,
      `| correct admin dashboard sign-ins accepted | ${operatorsOk} of ${GOOD_OPERATORS} (${fmt(operatorOutcomes)}) |`,
      `| game API (data PUT/GET, ${GAME_RATE}/s) answered 200/201 | ${gameLatencies.length} of ${gameTotal} (${fmt(gameStatuses)}) |`,
      `| game API latency p50 / p99 | ${percentile(gameLatencies, 0.5).toFixed(0)} ms / ${percentile(gameLatencies, 0.99).toFixed(0)} ms |`,
      `| flood (${FLOOD_RATE * DURATION_S} wrong sign-ins, ${FLOOD_RATE}/s, each from a new /64) by answer | ${fmt(floodStatuses)} |`,
      `| run | ${elapsed.toFixed(1)} s (flood ${DURATION_S} s + draining) |`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    clearTimeout(cutOff);
    await product?.stop();
  }
}

await main();
