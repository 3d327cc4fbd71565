#!/usr/bin/env node
// Auth throughput and latency against the product as `npm start` runs it (embedded Postgres,
// in-process limiter), beside a trivial route measured in the same run.
//   node e2e/load/bench-auth.mjs [seconds=10]
import { measure, table, trivialRequest, withProduct } from "./lib.mjs";

const seconds = Number(process.argv[2] ?? 10);
await withProduct({}, async (product) => {
  const { baseUrl, demo } = product;
  const json = { "X-API-Key": demo.apiKey, "Content-Type": "application/json" };
  const email = `bench-${Date.now()}@example.com`;
  const password = "correct horse battery";
  const reg = await fetch(`${baseUrl}/api/v1/auth/email/register`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email, password }),
  });
  if (reg.status !== 200) throw new Error(`register failed: ${reg.status}`);

  const rows = [];
  const run = async (name, connections, request, expect) =>
    rows.push({ name, connections, ...(await measure({ request, connections, seconds, expect })) });
  await run("trivial: GET /api/v1/auth/anonymous (405 after key + limit, no DB)", 8, trivialRequest(product), 405);
  await run(
    "POST /api/v1/auth/anonymous",
    8,
    () => [`${baseUrl}/api/v1/auth/anonymous`, { method: "POST", headers: json, body: "{}" }],
    200,
  );
  await run(
    "POST /api/v1/auth/email/login (argon2id 19 MiB, t=2)",
    1,
    () => [`${baseUrl}/api/v1/auth/email/login`, { method: "POST", headers: json, body: JSON.stringify({ email, password }) }],
    200,
  );
  await run(
    "POST /api/v1/auth/email/login (argon2id 19 MiB, t=2)",
    4,
    () => [`${baseUrl}/api/v1/auth/email/login`, { method: "POST", headers: json, body: JSON.stringify({ email, password }) }],
    200,
  );
  table(`Auth against npm start (embedded Postgres, in-process limiter), ${seconds} s per row after 2 s warm-up`, rows);
});
