#!/usr/bin/env node
// The dashboard's players export at 100,000 players: time and the server's memory. Seeds the
// demo project's players with one INSERT … SELECT generate_series (names, e-mails for half of
// them, one in ten banned), signs in as the demo operator like a browser, downloads
// GET /api/dashboard/projects/:id/exports/players as CSV and as JSON over HTTP, and samples the
// resident memory (VmRSS in /proc) of the app's Node processes every 20 ms meanwhile. Prints a
// table; writes e2e/load/results/exports.md.
//   node e2e/load/export-bench.mjs [--players 100000]
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, signIn, withProduct } from "./lib.mjs";

const { values: args } = parseArgs({
  options: { players: { type: "string", default: "100000" }, heap: { type: "string", default: "" } },
});
const count = Number(args.players);
// --heap <MiB>: the app's V8 old space capped (NODE_OPTIONS), to show an export needs no heap in proportion to its size.
const extraEnv = args.heap ? { NODE_OPTIONS: `--max-old-space-size=${Number(args.heap)}` } : {};

/** The app's Node processes: the launcher and its descendants, without embedded Postgres. */
function nodeProcesses(rootPid) {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {}
  }
  const tree = new Set([rootPid]);
  for (let grown = true; grown; ) {
    grown = false;
    for (const [pid, ppid] of parents) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grown = true;
      }
    }
  }
  return [...tree].filter((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
    } catch {
      return false;
    }
  });
}
const statusKb = (pid, field) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return 0;
  }
};
const mib = (kb) => (kb / 1024).toFixed(0);

const report = await withProduct(extraEnv, async (product) => {
  const hash = createHash("sha256").update(product.demo.apiKey).digest();
  const [{ project_id: projectId }] = (await product.sql("SELECT project_id FROM api_keys WHERE key_hash = $1", [hash])).rows;
  const seeded = performance.now();
  await product.sql(
    `INSERT INTO players (id, project_id, display_name, email, created_at, last_login_at, banned_at, ban_reason, updated_at)
     SELECT gen_random_uuid(), $1,
            (ARRAY['Ada','Grace','Linus','Ken','Barbara','Edsger','Donald','Frances','Alan','Margaret'])[1 + g % 10] || ' ' || md5(g::text),
            CASE WHEN g % 2 = 0 THEN 'player' || g || '@example.com' END,
            now() - ((${count} - g) || ' seconds')::interval,
            now() - ((g % 1000) || ' minutes')::interval,
            CASE WHEN g % 10 = 0 THEN now() END, CASE WHEN g % 10 = 0 THEN 'bench, "quoted"' END,
            now()
       FROM generate_series(1, $2::int) g`,
    [projectId, count],
  );
  await product.sql("VACUUM ANALYZE players");
  const seedSeconds = (performance.now() - seeded) / 1000;
  const total = Number((await product.sql("SELECT count(*) FROM players WHERE project_id = $1", [projectId])).rows[0].count);
  const cookie = await signIn(product.baseUrl, product.demo.operatorEmail, product.demo.operatorPassword);
  const pids = nodeProcesses(product.pid);
  const rss = () => pids.reduce((sum, pid) => sum + statusKb(pid, "VmRSS"), 0);
  const runs = [];
  // The last run reads slowly (20 ms per read, like a slow link): the server must wait, not buffer.
  for (const [format, pauseMs] of [
    ["csv", 0],
    ["json", 0],
    ["csv", 0],
    ["csv", 20],
  ]) {
    await new Promise((r) => setTimeout(r, 1_000));
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss());
    }, 20);
    const started = performance.now();
    const res = await fetch(`${product.baseUrl}/api/dashboard/projects/${projectId}/exports/players?format=${format}`, {
      headers: { Cookie: cookie },
    });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    let firstByteMs = 0;
    let bytes = 0;
    let newlines = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!firstByteMs) firstByteMs = performance.now() - started;
      bytes += value.length;
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      for (const b of value) if (b === 10) newlines += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rss());
    // CSV: a line per row and the header; JSON: a line per element, "[" and "]" on lines of their own.
    const rows = format === "csv" ? newlines - 1 : newlines - 2;
    runs.push({ format: pauseMs ? `${format}, slow reader` : format, rows, bytes, firstByteMs, seconds, before, peak });
  }
  const commandOf = (pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      return argv
        .slice(0, 2)
        .map((a) => path.basename(a))
        .join(" ");
    } catch {
      return "?";
    }
  };
  return { total, seedSeconds, pids, runs, hwm: pids.map((pid) => [`${pid} (${commandOf(pid)})`, statusKb(pid, "VmHWM")]) };
});

const lines = [
  `Players export, ${report.total.toLocaleString("en")} players (seeded in ${report.seedSeconds.toFixed(1)} s), ${new Date().toISOString().slice(0, 10)}, node e2e/load/export-bench.mjs --players ${count}${args.heap ? ` --heap ${args.heap}` : ""}`,
  "",
  "| format | rows | MiB | first byte | total | rows/s | server RSS before | server RSS peak |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
  ...report.runs.map(
    (r) =>
      `| ${r.format} | ${r.rows.toLocaleString("en")} | ${(r.bytes / 1048576).toFixed(1)} | ${r.firstByteMs.toFixed(0)} ms | ${r.seconds.toFixed(2)} s | ${Math.round(r.rows / r.seconds).toLocaleString("en")} | ${mib(r.before)} MiB | ${mib(r.peak)} MiB |`,
  ),
  "",
  `Server processes sampled (VmRSS every 20 ms, summed): ${report.pids.join(", ")}; their VmHWM (peak since start) afterwards: ${report.hwm.map(([pid, kb]) => `${pid}: ${mib(kb)} MiB`).join(", ")}.`,
];
console.log(lines.join("\n"));
mkdirSync(path.join(root, "e2e/load/results"), { recursive: true });
writeFileSync(path.join(root, "e2e/load/results/exports.md"), `${lines.join("\n")}\n`);
