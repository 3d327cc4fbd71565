#!/usr/bin/env node
// Player data throughput and latency (1 KiB values) against the product as `npm start` runs
// it, beside a trivial route measured in the same run.
//   node e2e/load/bench-data.mjs [seconds=10]
import { measure, table, trivialRequest, withProduct } from "./lib.mjs";

const seconds = Number(process.argv[2] ?? 10);
await withProduct({}, async (product) => {
  const { baseUrl, demo } = product;
  const connections = 8;
  const players = [];
  for (let i = 0; i < connections * 4; i++) {
    const res = await fetch(`${baseUrl}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": demo.apiKey } });
    players.push((await res.json()).accessToken);
  }
  const headers = (i) => ({
    "X-API-Key": demo.apiKey,
    Authorization: `Bearer ${players[i % players.length]}`,
    "Content-Type": "application/json",
  });
  const value = { blob: "x".repeat(1024 - 11) }; // {"blob":"…"} serialises to 1,024 bytes
  const body = JSON.stringify({ value });
  for (let i = 0; i < players.length; i++) {
    await fetch(`${baseUrl}/api/v1/players/me/data/profile`, { method: "PUT", headers: headers(i), body });
  }
  const rows = [];
  const run = async (name, request, expect) =>
    rows.push({ name, connections, ...(await measure({ request, connections, seconds, expect })) });
  await run("trivial: GET /api/v1/auth/anonymous (405 after key + limit)", trivialRequest(product), 405);
  await run(
    "GET /api/v1/players/me/data/profile (1 KiB)",
    (i) => [`${baseUrl}/api/v1/players/me/data/profile`, { headers: headers(i) }],
    200,
  );
  await run(
    "PUT /api/v1/players/me/data/profile (1 KiB)",
    (i) => [`${baseUrl}/api/v1/players/me/data/profile`, { method: "PUT", headers: headers(i), body }],
    200,
  );
  table(`Player data against npm start (embedded Postgres, ${players.length} players), ${seconds} s per row after 2 s warm-up`, rows);
});
