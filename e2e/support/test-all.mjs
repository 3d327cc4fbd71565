// `npm test`: the whole suite — vitest (unit and integration projects) and Playwright (the
// dashboard and the SDK in the browser) — side by side. Both spend much of their time waiting
// (for a started app, a browser, a poll), so on 2 cores the two together take little more
// than the longer one alone. The production build is made once first: each suite starts apps
// that would otherwise race to rebuild it ("Another next build process is already running").
// Playwright runs in E2E_SHARDS shards (default 2: `playwright test --shard=i/n`), each with
// its own app (E2E_PORT 3100, 3101, …; a fresh embedded Postgres each), output folder
// (test-results/playwright-i) and HTML report (playwright-report-i).
// Vitest's output streams as it comes; each shard's lines are prefixed "[e2e i] ".
// TEST_SERIAL=1 runs one after the other, as before (vitest, then Playwright in one shard).
// Arguments after `--` go to neither: run a suite's own command for a subset
// (`npx vitest run <files>`, `npx playwright test <spec>`).
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { root } from "./launch.mjs";

const bin = (name) => `${root}/node_modules/.bin/${name}`;

/** Runs `command`; each line of its output through `line`, or as it is. Resolves with the exit code and the time taken. */
function run(name, command, args, prefix, env = {}) {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: prefix ? ["ignore", "pipe", "pipe"] : "inherit",
  });
  if (prefix) {
    for (const stream of [child.stdout, child.stderr]) {
      const out = stream === child.stdout ? process.stdout : process.stderr;
      createInterface({ input: stream }).on("line", (l) => out.write(`${prefix}${l}\n`));
    }
  }
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), seconds: (performance.now() - started) / 1000 }));
  });
}

const build = spawnSync(process.execPath, ["server/cli/start.mjs", "--build-only"], { cwd: root, stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

const vitest = () => run("vitest", bin("vitest"), ["run"]);
const shard = (i, n) =>
  n === 1
    ? run("playwright", bin("playwright"), ["test"], "[e2e] ")
    : run(`playwright shard ${i}/${n}`, bin("playwright"), ["test", `--shard=${i}/${n}`], `[e2e ${i}] `, {
        E2E_PORT: String(3099 + i),
        E2E_OUTPUT_DIR: `test-results/playwright-${i}`,
        E2E_REPORT_DIR: `playwright-report-${i}`,
      });
const shards = process.env.TEST_SERIAL === "1" ? 1 : Math.max(1, Number(process.env.E2E_SHARDS ?? 2));
const playwright = () => Promise.all(Array.from({ length: shards }, (_, i) => shard(i + 1, shards)));
const results =
  process.env.TEST_SERIAL === "1" ? [await vitest(), ...(await playwright())] : (await Promise.all([vitest(), playwright()])).flat();
for (const r of results)
  console.log(`[test] ${r.name}: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
