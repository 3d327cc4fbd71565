// `npm run bench:signups`: launch-day registrations against the production build (`npm start`,
// default WEB_CONCURRENCY, in-process limiter, TRUST_PROXY so each registration names its own
// address), as the live-ops trial seeded players: BURST e-mail registrations, at most
// CONCURRENCY at once, each from its own address, with
//   - the hashing gate's defaults (a queue bounded by the time it can start within, 5 s), and
//   - the gate as it was before (PASSWORD_HASH_QUEUE=8, PASSWORD_HASH_MAX_WAIT_MS=2000),
// one after the other on fresh databases. Prints, per side: registrations that succeeded and
// were refused, registrations per second and per core, and the latency of the successful ones
// (p50, p99, max). The flood that the gate must still hold is `node e2e/load/signin-flood.mjs`.
// Loopback only; each request times out after 60 s, the whole run is cut off after 10 minutes.
import { randomBytes } from "node:crypto";
import http from "node:http";
import os from "node:os";
import { runSides, startProxiedProduct } from "./lib.mjs";

const BURST = Number(process.env.SIGNUP_BURST ?? 150);
const CONCURRENCY = Number(process.env.SIGNUP_CONCURRENCY ?? 50);
const REQUEST_TIMEOUT_MS = 60_000;
const RUN_LIMIT_MS = 10 * 60_000;
const ALL_SIDES = [
  { name: "bounded by time (defaults)", env: {} },
  { name: "before: queue of 8, 2 s", env: { PASSWORD_HASH_QUEUE: "8", PASSWORD_HASH_MAX_WAIT_MS: "2000" } },
];
/** SIGNUP_SIDES=1 or 2 runs only that side. */
const SIDES = process.env.SIGNUP_SIDES
  ? ALL_SIDES.filter((_, i) => process.env.SIGNUP_SIDES?.split(",").includes(String(i + 1)))
  : ALL_SIDES;

const log = (m) => process.stderr.write(`[bench-signups] ${m}\n`);

function register(base, apiKey, i) {
  return new Promise((resolve) => {
    const start = performance.now();
    const body = JSON.stringify({
      email: `launch-${i}-${randomBytes(4).toString("hex")}@example.com`,
      password: randomBytes(12).toString("base64url"),
    });
    const headers = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "X-API-Key": apiKey,
      // 198.18.0.0/15 (benchmarking addresses): a new address per registration.
      "X-Forwarded-For": `198.18.${(i >> 8) & 255}.${i & 255}`,
    };
    const req = http.request(`${base}/api/v1/auth/email/register`, { method: "POST", headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        let code = "";
        try {
          code = JSON.parse(Buffer.concat(chunks).toString("utf8"))?.error?.details?.reason ?? "";
        } catch {}
        resolve({ status: res.statusCode ?? 0, code, ms: performance.now() - start });
      });
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: 0, code: "network", ms: performance.now() - start }));
    req.end(body);
  });
}

const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : Number.NaN);

async function runSide(side) {
  const product = await startProxiedProduct("bench_signups", side.env);
  try {
    const { apiKey } = product.demo;
    // One registration first: the app's routes are compiled and its pools open before timing.
    await register(product.baseUrl, apiKey, 65_000);
    const results = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BURST) results.push(await register(product.baseUrl, apiKey, next++));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (results.some((r) => r.status >= 500 && r.code !== "password_checks_busy")) {
      const errors = product
        .output()
        .split("\n")
        .filter((l) => l.includes('"level":"error"'));
      log(`${side.name}: server errors (${errors.length}), the first: ${errors.slice(0, 3).join("\n")}`);
    }
    const ok = results.filter((r) => r.status === 200).map((r) => r.ms);
    ok.sort((a, b) => a - b);
    const refused = results.filter((r) => r.status !== 200);
    const reasons = new Map();
    for (const r of refused) reasons.set(`${r.status} ${r.code}`.trim(), (reasons.get(`${r.status} ${r.code}`.trim()) ?? 0) + 1);
    return {
      side: side.name,
      ok: ok.length,
      refused: [...reasons].map(([k, n]) => `${n} × ${k}`).join(", ") || "none",
      perSecond: ok.length / seconds,
      perCore: ok.length / seconds / os.availableParallelism(),
      p50: percentile(ok, 0.5),
      p99: percentile(ok, 0.99),
      max: ok.at(-1) ?? Number.NaN,
    };
  } finally {
    await product.stop();
  }
}

async function main() {
  const rows = await runSides(
    "bench-signups",
    SIDES,
    (side) => {
      log(`${side.name}: ${BURST} registrations, ${CONCURRENCY} at once`);
      return runSide(side);
    },
    { limitMs: RUN_LIMIT_MS },
  );
  const ms = (v) => (Number.isFinite(v) ? `${Math.round(v)} ms` : "–");
  console.log(
    `\n${BURST} e-mail registrations, at most ${CONCURRENCY} at once, each from its own address; ${os.availableParallelism()} cores, Node ${process.versions.node}\n`,
  );
  console.log("| gate | succeeded | refused | registrations/s | per core | p50 | p99 | max |");
  console.log("|---|---:|---|---:|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.side} | ${r.ok} | ${r.refused} | ${r.perSecond.toFixed(1)} | ${r.perCore.toFixed(1)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} |`,
    );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
