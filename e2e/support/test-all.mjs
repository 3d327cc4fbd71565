// `npm test`: the whole suite — vitest (unit and integration projects) and Playwright (the
// dashboard and the SDK in the browser) — side by side. Both spend much of their time waiting
// (for a started app, a browser, a poll), so on 2 cores the two together take little more
// than the longer one alone. The production build is made once first: each suite starts apps
// that would otherwise race to rebuild it ("Another next build process is already running").
// Vitest's output streams as it comes; Playwright's lines are prefixed "[e2e] ".
// TEST_SERIAL=1 runs one after the other, as before (vitest, then Playwright).
// Arguments after `--` go to neither: run a suite's own command for a subset
// (`npx vitest run <files>`, `npx playwright test <spec>`).
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { root } from "./launch.mjs";

const bin = (name) => `${root}/node_modules/.bin/${name}`;

/** Runs `command`; each line of its output through `line`, or as it is. Resolves with the exit code and the time taken. */
function run(name, command, args, prefix) {
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, stdio: prefix ? ["ignore", "pipe", "pipe"] : "inherit" });
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
const playwright = () => run("playwright", bin("playwright"), ["test"], "[e2e] ");
const results = process.env.TEST_SERIAL === "1" ? [await vitest(), await playwright()] : await Promise.all([vitest(), playwright()]);
for (const r of results)
  console.log(`[test] ${r.name}: ${r.code === 0 ? "passed" : `failed (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
