import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "./support/fixtures";
import {
  csFiles,
  listNUnitCases,
  type NUnitResult,
  outputByTest,
  type ProcessResult,
  parseNUnitXml,
  resultIsOf,
  runProcess,
  tail,
} from "./support/nunit";

/**
 * The C# SDK against the real server: builds it with Mono's mcs (the library, the Unity-only
 * files against stub Unity types, the NUnit suite and the headless sample), runs the NUnit suite
 * once (nunit-console 2.6) against the app the integration project started, with a fixture
 * server for what only this process can do (support/fixtures.ts), and reports each NUnit case as
 * a test of its own. The cases are listed by scanning Tests~/**\/*.cs for [Test] methods, so a
 * case NUnit never reported (a crash, a hang) fails here by name.
 */
const root = path.resolve(import.meta.dirname, "../..");
const sdk = path.join(root, "sdk-csharp");
const bin = path.join(sdk, "bin~");
const tools = path.join(sdk, "Tools~");
const results = path.join(root, "test-results", "csharp");
const cases = listNUnitCases(path.join(sdk, "Tests~"));

// Measured here (two shared cores): a cold build 1.2 s, the NUnit run (42 cases) 8 s, the sample
// 0.4 s; each budget is far more than 5x that, for a busier machine and a growing suite. The
// whole beforeAll stays inside 10 minutes.
const BUILD_TIMEOUT_MS = 150_000;
const NUNIT_TIMEOUT_MS = 360_000;
const SAMPLE_TIMEOUT_MS = 120_000;

// The child processes talk to loopback only: no proxy of this machine may come between.
const NO_PROXY = {
  http_proxy: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  HTTPS_PROXY: undefined,
  all_proxy: undefined,
  ALL_PROXY: undefined,
};

let fixtures: FixtureServer | undefined;
let build: ProcessResult | undefined;
let nunit: { run: ProcessResult; results: NUnitResult[]; xml: boolean; output: Map<string, string> } | undefined;
let work: string | undefined;

function buildFailure(): string | undefined {
  if (!build) return "the build did not run (see the file's beforeAll error)";
  if (build.code !== 0)
    return `the build failed (exit ${build.code}${build.timedOut ? `, killed after ${BUILD_TIMEOUT_MS} ms` : ""}):\n${tail(build.output)}`;
  return undefined;
}

beforeAll(async () => {
  mkdirSync(results, { recursive: true });
  work = mkdtempSync(path.join(tmpdir(), "gb-csharp-"));
  fixtures = await startFixtureServer();

  build = await runProcess(process.execPath, [path.join(tools, "build.mjs"), "--tests", "--unity"], {
    cwd: root,
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  if (build.code !== 0 || cases.length === 0) return;

  // A second app (2-second rate-limit windows) is started on first use; when the suite asks for
  // one, start it now, while nothing else runs, rather than inside a test's HTTP timeout.
  if (csFiles(path.join(sdk, "Tests~")).some((f) => /shortWindow/.test(readFileSync(f, "utf8")))) fixtures.prewarmShortWindowApp();

  const env: Record<string, string | undefined> = { ...NO_PROXY, GB_BASE_URL: inject("baseUrl"), GB_FIXTURES_URL: fixtures.url };
  const jsonCasesScript = path.join(tools, "json-cases.mjs");
  if (existsSync(jsonCasesScript)) {
    const file = path.join(work, "json-cases.json");
    const generated = await runProcess(process.execPath, [jsonCasesScript, file], { cwd: root, timeoutMs: 60_000 });
    if (generated.code !== 0) throw new Error(`json-cases.mjs failed (exit ${generated.code}):\n${tail(generated.output)}`);
    env.GB_JSON_CASES = file;
  }

  const xml = path.join(work, "TestResult.xml");
  const runner = "/usr/lib/nunit/nunit-console.exe";
  // mono --debug: stack traces with file and line (the build writes .mdb symbols).
  const [command, prefix] = existsSync(runner) ? ["mono", ["--debug", runner]] : ["nunit-console", []];
  const run = await runProcess(
    command,
    [...prefix, path.join(bin, "GameBackend.Tests.dll"), "-nologo", "-labels", "-noshadow", `-xml=${xml}`],
    {
      cwd: work,
      env,
      timeoutMs: NUNIT_TIMEOUT_MS,
    },
  );
  writeFileSync(path.join(results, "nunit.log"), run.output);
  const written = existsSync(xml);
  if (written) copyFileSync(xml, path.join(results, "TestResult.xml"));
  nunit = { run, results: written ? parseNUnitXml(readFileSync(xml, "utf8")) : [], xml: written, output: outputByTest(run.stdout) };
}, 600_000);

afterAll(async () => {
  await fixtures?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("the C# models match the served OpenAPI document", async () => {
  const script = path.join(tools, "generate-models.mjs");
  const check = await runProcess(process.execPath, [script, "--check"], { cwd: root, timeoutMs: 120_000 });
  expect(check.code, check.output).toBe(0);
}, 150_000);

it("every file and folder the Unity package imports has its current .meta (Unity ignores assets without one in a git package)", async () => {
  const check = await runProcess(process.execPath, [path.join(tools, "metas.mjs"), "--check"], { cwd: root, timeoutMs: 120_000 });
  expect(check.code, check.output).toBe(0);
}, 150_000);

it("the C# SDK compiles with mcs 6.8: the library, the Unity-only files against stub Unity types, the NUnit suite and the headless sample", async () => {
  const failure = buildFailure();
  if (failure) throw new Error(failure);
  // The build skips a part whose sources are missing, with a line saying so: here every part must be built.
  expect(build?.output.split("\n").filter((line) => /: skipped/.test(line))).toEqual([]);
  expect(existsSync(path.join(bin, "GameBackend.dll"))).toBe(true);
  // The build prints the DLL's absolute path last: what anything consuming the SDK outside Unity starts from.
  expect(build?.output.trim().split("\n").at(-1)).toBe(path.join(bin, "GameBackend.dll"));
});

function nunitFailure(): string | undefined {
  const failure = buildFailure();
  if (failure) return `not run: ${failure}`;
  if (!nunit) return "NUnit did not run (see the file's beforeAll error)";
  return undefined;
}

const fixtureNames = [...new Set(cases.map((c) => c.fixture))];
for (const fixture of fixtureNames) {
  describe(`NUnit ${fixture}`, () => {
    for (const c of cases.filter((x) => x.fixture === fixture)) {
      it(c.method, (ctx) => {
        const failure = nunitFailure();
        if (failure || !nunit) throw new Error(failure);
        const mine = nunit.results.filter((r) => resultIsOf(r, c));
        if (mine.length === 0) {
          const { run } = nunit;
          const started = nunit.output.has(c.fullName);
          throw new Error(
            `NUnit did not report ${c.fullName} (${path.relative(root, c.file)}): ` +
              `${run.timedOut ? `nunit-console was killed after ${NUNIT_TIMEOUT_MS} ms` : `nunit-console exited with ${run.code ?? run.signal}`}` +
              `${nunit.xml ? "" : ", no TestResult.xml"}${started ? "; the test had started" : ""}.\n${tail(run.output)}`,
          );
        }
        const failed = mine.filter((r) => r.executed && !r.success);
        if (failed.length > 0) {
          const printed = nunit.output.get(c.fullName)?.trim();
          throw new Error(
            failed
              .map((r) => `${r.name}: ${r.result}\n${r.message}\n${r.stackTrace}`)
              .concat(printed ? [`--- what the test printed ---\n${tail(printed, 4000)}`] : [])
              .join("\n\n"),
          );
        }
        if (mine.every((r) => !r.executed)) ctx.skip(`${mine[0]?.result}: ${mine[0]?.message}`);
      });
    }
  });
}

it("NUnit ran no case this file does not list (every C# test is reported here)", () => {
  const failure = nunitFailure();
  if (failure || !nunit) throw new Error(failure);
  const unlisted = nunit.results.filter((r) => !cases.some((c) => resultIsOf(r, c)));
  expect(
    unlisted.map((r) => `${r.name}: ${r.result}`),
    "the scanner of csharp.test.ts missed these [Test] methods",
  ).toEqual([]);
});

it(
  "the headless C# sample plays the sample game's loop",
  async (ctx) => {
    const failure = buildFailure();
    if (failure) throw new Error(`not run: ${failure}`);
    const exe = path.join(bin, "HeadlessSample.exe");
    if (!existsSync(exe)) ctx.skip("sdk-csharp/Samples~/Headless/ has no sources yet");
    if (!fixtures || !work) throw new Error("the fixture server did not start");
    const answer = await fetch(`${fixtures.url}/demo`, { method: "POST" });
    const demo = (await answer.json()) as { clientKey: string; baseUrl: string; error?: string };
    expect(answer.status, demo.error).toBe(200);
    const sample = await runProcess("mono", ["--debug", exe], {
      cwd: work,
      env: { ...NO_PROXY, GB_BASE_URL: demo.baseUrl, GB_API_KEY: demo.clientKey, GB_SESSION_FILE: path.join(work, "sample-session.json") },
      timeoutMs: SAMPLE_TIMEOUT_MS,
    });
    writeFileSync(path.join(results, "headless-sample.log"), sample.output);
    expect(
      sample.code,
      `the sample exited with ${sample.code ?? sample.signal}${sample.timedOut ? " (killed)" : ""}:\n${tail(sample.output)}`,
    ).toBe(0);
  },
  SAMPLE_TIMEOUT_MS + 30_000,
);
