// Server CPU per answer written as Next's route handlers write it (flush the headers, write the
// body, end a microtask later), with the launcher's coalescing (server/cli/response-writes.mjs)
// or without; `npm run bench` cannot tell ~20 µs from its noise.
//   node e2e/load/bench-response-writes.mjs on|off [answers=20000]
// A client in another process asks 16 at a time over kept-alive connections. Prints µs of server
// CPU per answer and answers per second; run "off" and "on" in turn, a few pairs.
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { coalesceResponseWrites } from "../../server/cli/response-writes.mjs";

const [mode = "on", count = "20000"] = process.argv.slice(2);
const n = Number(count);
const WARM_UP = 2_000;
const CONCURRENCY = 16;

if (mode === "client") {
  const port = Number(process.argv[4]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const one = () =>
    new Promise((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, path: "/", agent }, (res) => res.resume().on("end", resolve)).on("error", reject);
    });
  for (let i = 0; i < WARM_UP; i++) await one();
  process.send?.("start");
  const started = performance.now();
  let i = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (i++ < n) await one();
    }),
  );
  process.send?.({ answersPerSecond: Math.round(n / ((performance.now() - started) / 1000)) });
} else if (mode === "on" || mode === "off") {
  // A data GET's answer: ~300 bytes of JSON and a few headers.
  const body = JSON.stringify({ key: "profile", value: { level: 12, coins: 3400, name: "x".repeat(200) }, version: 7 });
  const server = http.createServer((_req, res) => {
    if (mode === "on") coalesceResponseWrites(res);
    void (async () => {
      res.statusCode = 200;
      res.setHeader("content-type", "application/json");
      res.setHeader("x-ratelimit-limit", "1000");
      res.flushHeaders();
      res.write(body);
      await Promise.resolve();
      res.end();
    })();
  });
  server.listen(0, "127.0.0.1", () => {
    const address = /** @type {import("node:net").AddressInfo} */ (server.address());
    const client = fork(fileURLToPath(import.meta.url), ["client", count, String(address.port)]);
    let cpu = process.cpuUsage();
    client.on("message", (m) => {
      if (m === "start") {
        cpu = process.cpuUsage();
        return;
      }
      const used = process.cpuUsage(cpu);
      const answersPerSecond = /** @type {{ answersPerSecond: number }} */ (m).answersPerSecond;
      console.log(
        JSON.stringify({
          coalesced: mode === "on",
          answers: n,
          serverUsPerAnswer: Math.round((used.user + used.system) / n),
          answersPerSecond,
        }),
      );
      client.kill();
      process.exit(0);
    });
  });
} else {
  throw new Error(`unknown mode ${mode}: on or off`);
}
