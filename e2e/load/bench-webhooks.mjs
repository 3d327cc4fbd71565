#!/usr/bin/env node
// `npm run bench:webhooks`: webhook delivery under the bench's realistic mix. One product as
// `npm start` runs it (embedded Postgres, WEB_CONCURRENCY workers), seeded like `npm run bench`,
// with a receiver in this process on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) subscribed to
// every event the mix causes (players created and signing in, purchases, currency and item
// changes, score submits on the mix's board). Slices of the mix alternate between the endpoint
// disabled and enabled, so the table shows what delivering costs the game API beside the same
// load without it; after each enabled slice the outbox drains before the next slice starts.
// Lag is the time from an event's commit (its `timestamp`) to the receiver having it.
// Prints a table; writes e2e/load/results/webhooks.md.
//   npm run bench:webhooks -- [--duration 10] [--rounds 3] [--connections 32]
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { ensureBuild, load, processCpuMs, root, signIn, startProduct, unlimitDemo } from "./lib.mjs";
import { volumeScenarios } from "./scenarios.mjs";
import { seedVolume, VOLUME_BOARD } from "./seed-volume.mjs";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
  },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const connections = Number(args.connections);
const EVENT_TYPES = [
  "player.created",
  "player.signed_in",
  "purchase.completed",
  "currency.changed",
  "item.granted",
  "leaderboard.score_submitted",
];

// ---- The receiver: answers 204 at once, keeps when each delivery arrived ----
const received = [];
const receiver = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const at = Date.now();
    res.writeHead(204).end();
    try {
      const event = JSON.parse(body);
      received.push({ id: req.headers["webhook-id"], at, eventAt: Date.parse(event.timestamp), type: event.type });
    } catch {
      received.push({ id: req.headers["webhook-id"], at, eventAt: Number.NaN, type: "unparsable" });
    }
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

const quantile = (xs, q) => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

ensureBuild();
const started = performance.now();
const product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
let report;
try {
  await unlimitDemo(product);
  const seed = await seedVolume(product);
  product.volume = { projectId: seed.projectId };
  const projectId = seed.projectId;
  const cookie = await signIn(product.baseUrl, product.demo.operatorEmail, product.demo.operatorPassword);
  const call = async (procedure, input) => {
    const res = await fetch(`${product.baseUrl}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie, Origin: product.baseUrl },
      body: JSON.stringify(input),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${procedure}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json.result.data;
  };
  await product.sql("UPDATE leaderboards SET score_events = true WHERE project_id = $1 AND id = $2", [projectId, VOLUME_BOARD]);
  const created = await call("webhooks.create", {
    projectId,
    endpoint: { url: receiverUrl, description: "bench receiver", eventTypes: EVENT_TYPES, enabled: false },
  });
  const endpointId = created.endpoint?.id ?? created.id;
  const setEnabled = (enabled) => call("webhooks.update", { projectId, endpointId, patch: { enabled } });
  const pending = async () =>
    Number((await product.sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'PENDING'")).rows[0]?.n ?? 0);
  const countSince = async (since) =>
    Number((await product.sql("SELECT count(*)::int AS n FROM webhook_events WHERE created_at >= $1", [since])).rows[0]?.n ?? 0);

  const mix = volumeScenarios.find((s) => s.name === "mix");
  // Refresh is 5 % of the mix and each token is presented once: enough for every slice at up to 1,500 req/s.
  const refreshReserve = Math.ceil((rounds * 2 * duration + 3) * 1_500 * 0.05);
  const spec = await mix.setup(product, { refreshReserve });
  await load(product.baseUrl, spec, { duration: 3, connections }); // warm-up
  const slices = [];
  for (let round = 0; round < rounds; round++) {
    for (const enabled of round % 2 === 0 ? [false, true] : [true, false]) {
      await setEnabled(enabled);
      const since = new Date();
      const first = received.length;
      // CPU from the slice's start until its outbox drained: the app's processes, Postgres, and
      // this process (load generator and receiver), per request of the mix.
      const cpu0 = { app: processCpuMs(product.pid, { exclude: "postgres" }), all: processCpuMs(product.pid), gen: process.cpuUsage() };
      const t0 = Date.now();
      const result = await load(product.baseUrl, spec, { duration, connections });
      const t1 = Date.now();
      const deliveredDuringLoad = received.slice(first).filter((r) => r.at <= t1).length;
      let drainMs = 0;
      if (enabled) {
        const deadline = Date.now() + 300_000;
        while ((await pending()) > 0) {
          if (Date.now() > deadline) throw new Error("the outbox did not drain in 5 minutes");
          await new Promise((r) => setTimeout(r, 100));
        }
        drainMs = Date.now() - t1;
      }
      const gen = process.cpuUsage(cpu0.gen);
      const app = processCpuMs(product.pid, { exclude: "postgres" }) - cpu0.app;
      const all = processCpuMs(product.pid) - cpu0.all;
      const perRequest = (ms) => (ms * 1000) / Math.max(1, result.requests);
      const cpu = { app: perRequest(app), pg: perRequest(all - app), gen: perRequest((gen.user + gen.system) / 1000) };
      const mine = received.slice(first);
      const events = enabled ? await countSince(since) : 0;
      slices.push({
        enabled,
        rps: result.rps,
        p99: result.p99,
        errors: result.errors,
        events,
        eventsPerSecond: events / ((t1 - t0) / 1000),
        deliveredPerSecond: deliveredDuringLoad / ((t1 - t0) / 1000),
        lags: mine.map((r) => r.at - r.eventAt).filter(Number.isFinite),
        received: mine.length,
        unique: new Set(mine.map((r) => r.id)).size,
        drainMs,
        cpu,
      });
      console.error(
        `[bench] webhooks ${enabled ? "on " : "off"}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms, CPU µs/request app ${cpu.app.toFixed(0)} Postgres ${cpu.pg.toFixed(0)} generator ${cpu.gen.toFixed(0)}${enabled ? `, ${events} events, ${mine.length} received, drained ${drainMs} ms after the load` : ""}`,
      );
    }
  }
  const failed = Number(
    (await product.sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'SUCCEEDED'")).rows[0]?.n ?? 0,
  );
  const delivered = Number((await product.sql("SELECT count(*)::int AS n FROM webhook_deliveries")).rows[0]?.n ?? 0);
  report = { slices, failed, delivered };
} finally {
  await product.stop();
  receiver.close();
}

const on = report.slices.filter((s) => s.enabled);
const off = report.slices.filter((s) => !s.enabled);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const lags = on.flatMap((s) => s.lags);
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)}` : "—");
const lines = [
  `npm run bench:webhooks — ${new Date().toISOString()}, ${os.cpus().length} cores, Node ${process.version}, ${connections} connections, ${rounds} rounds of ${duration} s per side, whole run ${((performance.now() - started) / 60_000).toFixed(1)} min`,
  "",
  `The realistic mix (weights in the README; 1,000 seeded players) on one product as \`npm start\` runs it (embedded Postgres), with one endpoint subscribed to ${EVENT_TYPES.join(", ")}: a receiver in the load generator's process that answers 204 at once. Slices alternate between the endpoint disabled and enabled; after an enabled slice the outbox drains before the next one. Lag: from the event's commit time to its arrival.`,
  "",
  "| endpoint | mix req/s (mean of slices) | mix p99 ms (median slice) | events written/s | delivered/s during the load | lag p50 ms | lag p99 ms | lag max ms | drain after the load, ms (max) |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  `| disabled | ${mean(off.map((s) => s.rps)).toFixed(0)} | ${quantile(
    off.map((s) => s.p99),
    0.5,
  )} | — | — | — | — | — | — |`,
  `| enabled | ${mean(on.map((s) => s.rps)).toFixed(0)} | ${quantile(
    on.map((s) => s.p99),
    0.5,
  )} | ${mean(on.map((s) => s.eventsPerSecond)).toFixed(0)} | ${mean(on.map((s) => s.deliveredPerSecond)).toFixed(0)} | ${ms(quantile(lags, 0.5))} | ${ms(quantile(lags, 0.99))} | ${ms(Math.max(...lags))} | ${Math.max(...on.map((s) => s.drainMs))} |`,
  "",
  "CPU per request of the mix, from a slice's start until its outbox drained (mean of slices), in µs:",
  "",
  "| endpoint | app processes | Postgres | load generator + receiver |",
  "|---|---:|---:|---:|",
  ...[
    ["disabled", off],
    ["enabled", on],
  ].map(
    ([label, xs]) =>
      `| ${label} | ${mean(xs.map((s) => s.cpu.app)).toFixed(0)} | ${mean(xs.map((s) => s.cpu.pg)).toFixed(0)} | ${mean(xs.map((s) => s.cpu.gen)).toFixed(0)} |`,
  ),
  "",
  `Slices in order (mix req/s): ${report.slices.map((s) => `${s.enabled ? "on" : "off"} ${s.rps.toFixed(0)}`).join(", ")}.`,
  "",
  `Deliveries: ${report.delivered} written, ${report.failed} not succeeded at the end; received ${on.reduce((n, s) => n + s.received, 0)} requests for ${on.reduce((n, s) => n + s.unique, 0)} distinct webhook-ids (duplicates: ${on.reduce((n, s) => n + s.received - s.unique, 0)}). Errors in the mix: ${report.slices.reduce((n, s) => n + s.errors, 0)}.`,
];
console.log(lines.join("\n"));
const out = path.join(root, "e2e/load/results");
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "webhooks.md"), `${lines.join("\n")}\n`);
