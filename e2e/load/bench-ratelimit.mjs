#!/usr/bin/env node
// What the rate limiter adds per request: the same routes on instances with the limiter on
// Redis (REDIS_URL, loopback), in-process, and off — all started and measured in one run.
//   REDIS_URL=redis://127.0.0.1:6379 node e2e/load/bench-ratelimit.mjs [seconds=10]
import { ensureBuild, measure, startProduct, table, unlimitDemo } from "./lib.mjs";

const seconds = Number(process.argv[2] ?? 10);
const redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  console.error("Set REDIS_URL (e.g. redis://127.0.0.1:6379)");
  process.exit(2);
}
ensureBuild();
const variants = [
  ["limiter off (baseline)", { RATE_LIMITS: "off" }],
  ["limiter on Redis", { REDIS_URL: redisUrl }],
  ["limiter in-process", {}],
];
const rows = [];
for (const [label, env] of variants) {
  const product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1", ...env });
  try {
    await unlimitDemo(product);
    const { baseUrl, demo } = product;
    const trivial = () => [`${baseUrl}/api/v1/auth/anonymous`, { headers: { "X-API-Key": demo.apiKey } }];
    rows.push({
      name: `${label}: GET /auth/anonymous → 405 (key + limit only)`,
      connections: 1,
      ...(await measure({ request: trivial, connections: 1, seconds, expect: 405 })),
    });
    rows.push({
      name: `${label}: same, 8 connections`,
      connections: 8,
      ...(await measure({ request: trivial, connections: 8, seconds, expect: 405 })),
    });
  } finally {
    await product.stop();
  }
}
table(`Rate limiter cost, ${seconds} s per row after 2 s warm-up (one run; Redis on loopback)`, rows);
