// Players per core: a capacity model from CPU per request as `npm run bench` measured it (the
// scenarios' "CPU µs/request", app and database apart). A player session is written down below as
// the requests a game makes; its CPU is the sum of those requests' measured CPU; a day is
// `sessionsPerDay` sessions per daily active player; the busiest hour runs at `peakFactor` times
// the day's average rate; a core is planned to `utilisation` busy at that peak. Then
//
//   CPU per player per day = sessionsPerDay × Σ (count × CPU per request) + newPlayers × CPU per sign-in
//   daily active players per core = utilisation × 1 s × 86,400 ÷ (peakFactor × CPU per player per day)
//
// `node e2e/load/capacity.mjs [bench.json]` prints the tables from a bench run's JSON (default
// e2e/load/results/bench.json); the bench appends them to its own report when it measured every
// scenario the session uses. docs/operating/scaling.md publishes them with the method.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * One play session of a returning player, as the sample game and a typical casual/mid-core title
 * make it: about 10 minutes, a few levels. Each count is justified beside it.
 * @type {{ scenario: string, count: number, why: string }[]}
 */
export const SESSION = [
  { scenario: "refresh", count: 1, why: "the stored session is refreshed at start (access tokens last 15 min, a session ~10 min)" },
  { scenario: "config", count: 1, why: "remote config once at start (later reads are 304s or the SDK's copy)" },
  { scenario: "data-get", count: 2, why: "profile and settings keys at start" },
  { scenario: "data-put", count: 3, why: "progress written at the end of each of ~3 levels" },
  { scenario: "save-put", count: 1, why: "one 64 KiB cloud save at the end of the session" },
  { scenario: "score-submit", count: 3, why: "a score per level" },
  { scenario: "own-rank", count: 2, why: "the results screen shows the player's rank and neighbours twice a session" },
  { scenario: "top-25", count: 1, why: "the leaderboard screen opened once" },
  { scenario: "purchase", count: 1, why: "one soft-currency purchase (a booster) per session" },
];

/**
 * The day around the session. Sessions per day and peak factor are assumptions a studio should
 * replace with its own analytics; the defaults are middle-of-the-road for mobile games.
 */
export const DEFAULT_MODEL = {
  /** Sessions per daily active player per day. */
  sessionsPerDay: 3,
  /** New players per daily active player per day (each signs in anonymously once). */
  newPlayerShare: 0.05,
  /** Busiest hour ÷ the day's average hour (single-region games see 2–4). */
  peakFactor: 3,
  /** How busy a core is planned to be at that peak (head-room for spikes and deploys). */
  utilisation: 0.7,
  /** Minutes per session, only for the concurrent-players column. */
  sessionMinutes: 10,
};

const SIGN_IN = "anonymous-sign-in";
export const SESSION_SCENARIOS = [...new Set([...SESSION.map((s) => s.scenario), SIGN_IN])];

/**
 * @typedef {{ name: string, cpuUs: number, appCpuUs?: number, dbCpuUs?: number }} Row
 * @param {Row[]} rows one topology's scenario rows
 * @param {number} [scale] a factor on every request's CPU (a topology measured only on the mix)
 */
export function capacity(rows, model = DEFAULT_MODEL, scale = 1) {
  const byName = new Map(rows.map((r) => [r.name, r]));
  const missing = SESSION_SCENARIOS.filter((name) => !byName.has(name));
  if (missing.length) return { missing };
  const cpu = (name) => {
    const r = /** @type {Row} */ (byName.get(name));
    const app = r.appCpuUs ?? r.cpuUs;
    const db = r.dbCpuUs ?? 0;
    return { app: app * scale, db: db * scale, total: (app + db) * scale };
  };
  const session = { app: 0, db: 0, total: 0, requests: 0 };
  for (const { scenario, count } of SESSION) {
    const c = cpu(scenario);
    session.app += count * c.app;
    session.db += count * c.db;
    session.total += count * c.total;
    session.requests += count;
  }
  const signIn = cpu(SIGN_IN);
  const perPlayerDay = {
    app: model.sessionsPerDay * session.app + model.newPlayerShare * signIn.app,
    db: model.sessionsPerDay * session.db + model.newPlayerShare * signIn.db,
    total: model.sessionsPerDay * session.total + model.newPlayerShare * signIn.total,
    requests: model.sessionsPerDay * session.requests + model.newPlayerShare,
  };
  /** µs of a core's day available at the peak rate. */
  const budget = model.utilisation * 1e6 * 86_400;
  const perCore = (us) => (us > 0 ? budget / (model.peakFactor * us) : Number.POSITIVE_INFINITY);
  const dauPerCore = perCore(perPlayerDay.total);
  // A cross-check: the mix (many players at once, reads and writes interleaved) has cost more per
  // request than the weighted sum of its routes measured alone; at its average per request:
  const mix = byName.get("mix");
  const dauPerCoreAtMixCost = mix ? perCore(perPlayerDay.requests * mix.cpuUs * scale) : Number.NaN;
  return {
    dauPerCoreAtMixCost,
    missing,
    session,
    perPlayerDay,
    /** Daily active players per core, app and database on the same cores. */
    dauPerCore,
    /** Per core of the app alone and of the database alone (each on its own hosts). */
    dauPerAppCore: perCore(perPlayerDay.app),
    dauPerDbCore: perCore(perPlayerDay.db),
    /** Requests per second one core serves at the peak, and players in a session then. */
    peakRpsPerCore: (dauPerCore * perPlayerDay.requests * model.peakFactor) / 86_400,
    peakConcurrentPerCore: (dauPerCore * model.sessionsPerDay * model.sessionMinutes * 60 * model.peakFactor) / 86_400,
  };
}

const thousands = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "—");
const us = (x) => Math.round(x).toLocaleString("en-US");

/**
 * Markdown: the session, then one row per measured topology (and compare configuration, scaled by
 * its mix CPU against the same-worker-count topology row's mix).
 * @param {{ topologies: { name: string, label: string, rows: Row[] }[], compare?: { label: string, rows: Row[] }[] }} report
 */
export function capacityLines(report, model = DEFAULT_MODEL) {
  const rows = [];
  for (const t of report.topologies) {
    const c = capacity(t.rows, model);
    if (c.missing.length) continue;
    rows.push({ label: t.label, basis: "measured per route", c });
    if (t.name !== "postgres-redis") continue;
    // The compare configurations ran the mix only: their session CPU is this topology's, scaled by
    // the ratio of their mix CPU per request to the mix CPU per request measured here.
    const mix = t.rows.find((r) => r.name === "mix");
    for (const config of report.compare ?? []) {
      const theirs = config.rows.find((r) => r.name === "mix");
      if (!mix || !theirs) continue;
      const scale = theirs.cpuUs / mix.cpuUs;
      rows.push({
        label: `Postgres + Redis, ${config.label}`,
        basis: `per route × mix CPU ratio ${scale.toFixed(2)}`,
        c: capacity(t.rows, model, scale),
      });
    }
  }
  if (!rows.length) return [];
  const sessionRequests = SESSION.reduce((n, s) => n + s.count, 0);
  return [
    `**Players per core** (e2e/load/capacity.mjs: a session of ${sessionRequests} requests — ${SESSION.map((s) => `${s.count} ${s.scenario}`).join(", ")}; ${model.sessionsPerDay} sessions per player per day, ${model.newPlayerShare * 100} % new players per day signing in once; peak hour ${model.peakFactor} × the day's average; cores planned ${model.utilisation * 100} % busy at the peak)`,
    "",
    "| topology | basis | CPU per session µs (app + database) | daily active players per core (app and database on the same cores) | per app core | per database core | requests/s per core at the peak | players in a session per core at the peak | daily active players per core if every request cost the mix's average |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      ({ label, basis, c }) =>
        `| ${label} | ${basis} | ${us(c.session.total)} (${us(c.session.app)} + ${us(c.session.db)}) | ${thousands(c.dauPerCore)} | ${thousands(c.dauPerAppCore)} | ${thousands(c.dauPerDbCore)} | ${thousands(c.peakRpsPerCore)} | ${thousands(c.peakConcurrentPerCore)} | ${thousands(c.dauPerCoreAtMixCost)} |`,
    ),
    "",
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "results/bench.json");
  const report = JSON.parse(readFileSync(file, "utf8"));
  const lines = capacityLines(report);
  if (!lines.length) {
    console.error(`${file}: no topology measured every scenario of the session (${SESSION_SCENARIOS.join(", ")})`);
    process.exit(1);
  }
  console.log(lines.join("\n"));
}
