#!/usr/bin/env node
// `npm run bench:search`: the dashboard's player search at 100,000 players. Seeds the players of
// the demo project in SQL (display names, e-mails, linked identities), signs in as the demo
// operator through next-auth like a browser, and times the tRPC procedure `players.search` over
// HTTP for each kind of query (sequential requests: the latency an operator sees), plus the
// Postgres plan of the display-name query. Prints a table; writes e2e/load/results/search.md.
//   npm run bench:search -- [--players 100000] [--runs 40]
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, signIn, withProduct } from "./lib.mjs";

const { values: args } = parseArgs({
  options: { players: { type: "string", default: "100000" }, runs: { type: "string", default: "40" } },
});
const count = Number(args.players);
const runs = Number(args.runs);

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const report = await withProduct({}, async (product) => {
  const hash = createHash("sha256").update(product.demo.apiKey).digest();
  const [{ project_id: projectId }] = (await product.sql("SELECT project_id FROM api_keys WHERE key_hash = $1", [hash])).rows;
  const started = performance.now();
  await product.sql(
    `INSERT INTO players (id, project_id, display_name, email, created_at, updated_at)
     SELECT gen_random_uuid(), $1,
            (ARRAY['Ada','Grace','Linus','Ken','Barbara','Edsger','Donald','Frances','Alan','Margaret'])[1 + g % 10] || ' ' || md5(g::text),
            CASE WHEN g % 3 = 0 THEN 'player' || g || '@example.com' END,
            now() - (g || ' seconds')::interval, now()
       FROM generate_series(1, $2::int) g`,
    [projectId, count],
  );
  await product.sql(
    `INSERT INTO identities (id, project_id, player_id, provider, subject)
     SELECT gen_random_uuid(), $1, id, 'steam', '7656' || row_number() OVER () FROM players WHERE project_id = $1 AND email IS NULL LIMIT $2`,
    [projectId, Math.floor(count / 3)],
  );
  await product.sql("VACUUM ANALYZE players");
  await product.sql("VACUUM ANALYZE identities");
  const seedSeconds = (performance.now() - started) / 1000;
  const sample = (
    await product.sql("SELECT id, email, display_name FROM players WHERE project_id = $1 AND email IS NOT NULL LIMIT 1 OFFSET 1234", [
      projectId,
    ])
  ).rows[0];
  const subject = (await product.sql("SELECT subject FROM identities WHERE project_id = $1 LIMIT 1 OFFSET 777", [projectId])).rows[0]
    .subject;
  const fragment = sample.display_name.split(" ")[1].slice(3, 9);
  const cookie = await signIn(product.baseUrl, product.demo.operatorEmail, product.demo.operatorPassword);
  const search = async (query, offset = 0) => {
    const input = encodeURIComponent(JSON.stringify({ projectId, query, limit: 25, offset }));
    const t0 = performance.now();
    const res = await fetch(`${product.baseUrl}/api/trpc/players.search?input=${input}`, { headers: { Cookie: cookie } });
    const body = await res.json();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms, found: body.result.data.players.length };
  };
  const cases = [
    ["newest players, first page", ""],
    ["newest players, page at offset 50,000", "", 50_000],
    ["by player id", sample.id],
    ["by e-mail", sample.email],
    ["by linked identity", subject],
    [`by part of a display name ("${fragment}")`, fragment],
    ['by a common name ("Grace", ~10 % of players)', "Grace"],
  ];
  const rows = [];
  for (const [title, query, offset = 0] of cases) {
    await search(query, offset);
    const times = [];
    let found = 0;
    for (let i = 0; i < runs; i++) {
      const r = await search(query, offset);
      times.push(r.ms);
      found = r.found;
    }
    rows.push({ title, found, p50: percentile(times, 50), p99: percentile(times, 99) });
    console.error(`[search] ${title}: p50 ${percentile(times, 50).toFixed(1)} ms, ${found} found`);
  }
  const plan = (
    await product.sql("EXPLAIN (ANALYZE, COSTS OFF) SELECT id FROM players p WHERE p.project_id = $1 AND p.display_name ILIKE $2", [
      projectId,
      `%${fragment}%`,
    ])
  ).rows.map((r) => r["QUERY PLAN"]);
  return { rows, plan, seedSeconds };
});

const lines = [
  `npm run bench:search — ${new Date().toISOString()}, ${count.toLocaleString("en")} players in one project (seeded in ${report.seedSeconds.toFixed(1)} s), ${runs} sequential requests each, over HTTP through tRPC with an operator session`,
  "",
  "| query | rows returned | p50 ms | p99 ms |",
  "|---|---:|---:|---:|",
  ...report.rows.map((r) => `| ${r.title} | ${r.found} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`),
  "",
  "Postgres plan of the display-name match:",
  "",
  "```",
  ...report.plan,
  "```",
];
console.log(lines.join("\n"));
const out = path.join(root, "e2e/load/results");
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "search.md"), `${lines.join("\n")}\n`);
