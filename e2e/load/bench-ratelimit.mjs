#!/usr/bin/env node
// What the rate limiter adds per request: the same route on three instances — limiter off,
// on Redis (REDIS_URL, loopback), in-process — started together and measured in interleaved
// rounds of one run, so drift on a shared 2-core machine hits every variant alike.
//   REDIS_URL=redis://127.0.0.1:6379 node e2e/load/bench-ratelimit.mjs [secondsPerRound=4] [rounds=3]
import { Redis } from "ioredis";
import { ensureBuild, load, startProduct, trivialRequest, unlimitDemo } from "./lib.mjs";

const seconds = Number(process.argv[2] ?? 4);
const rounds = Number(process.argv[3] ?? 3);
const redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  console.error("Set REDIS_URL (e.g. redis://127.0.0.1:6379)");
  process.exit(2);
}
ensureBuild();
const variants = [
  { label: "limiter off (baseline)", env: { RATE_LIMITS: "off", REDIS_URL: "" } },
  { label: "limiter on Redis", env: { REDIS_URL: redisUrl } },
  { label: "limiter in-process", env: { REDIS_URL: "" } },
];
for (const v of variants) {
  v.product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1", ...v.env });
  await unlimitDemo(v.product);
  v.samples = { 1: [], 32: [] };
}

// Context: one Redis round trip on loopback, as the limiter's EVALSHA pays it.
const redis = new Redis(redisUrl);
const rtts = [];
for (let i = 0; i < 2_000; i++) {
  const t0 = performance.now();
  await redis.ping();
  rtts.push(performance.now() - t0);
}
redis.disconnect();
rtts.sort((a, b) => a - b);

try {
  for (let r = 0; r < rounds; r++) {
    for (const connections of [1, 32]) {
      for (const v of variants) {
        v.samples[connections].push(await load(v.product.baseUrl, trivialRequest(v.product), { duration: seconds, connections }));
      }
    }
  }
} finally {
  for (const v of variants) await v.product.stop();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nRate limiter cost: ${rounds} interleaved rounds of ${seconds} s per variant (medians of the rounds), one run, autocannon\n`);
console.log("| variant: GET /auth/anonymous → 405 (key + limit only) | connections | req/s | p50 ms | p99 ms | errors |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const connections of [1, 32]) {
  for (const v of variants) {
    const s = v.samples[connections];
    const m = (f) => median(s.map(f));
    const errors = s.reduce((a, x) => a + x.errors, 0);
    console.log(
      `| ${v.label} | ${connections} | ${m((x) => x.rps).toFixed(0)} | ${m((x) => x.p50).toFixed(2)} | ${m((x) => x.p99).toFixed(2)} | ${errors} |`,
    );
  }
}
console.log(`\nRedis PING round trip on loopback (2,000 sequential): p50 ${rtts[1000].toFixed(3)} ms, p99 ${rtts[1980].toFixed(3)} ms`);
