#!/usr/bin/env node
// Builds the C# SDK with Mono's C# compiler (mcs 6.8, C# 7.2): the compiler is the enforcement of
// the C# subset that both mcs and Unity's Roslyn accept (sdk-csharp/README.md, "Changing it").
//
//   node sdk-csharp/Tools~/build.mjs            Runtime/**/*.cs -> sdk-csharp/bin~/GameBackend.dll
//                                               (the Unity-only files are #if UNITY_5_3_OR_NEWER: empty here)
//        --tests   also Tests~/**/*.cs          -> sdk-csharp/bin~/GameBackend.Tests.dll (NUnit 2.6)
//                  and  Samples~/Headless/*.cs  -> sdk-csharp/bin~/HeadlessSample.exe
//        --unity   also Runtime again with -define:UNITY_5_3_OR_NEWER against a stub UnityEngine.dll
//                  built from Tools~/unity-stubs/*.cs (proves the Unity-only files compile; never run)
//
// The last line printed is the absolute path of GameBackend.dll (what anything consuming the SDK
// outside Unity starts from). Any compiler error, or a warning in the library's code (warnings
// are errors there; doc-comment warnings are only shown), exits 1 with mcs's output. A compile whose inputs (files, references, flags) are
// unchanged and older than its output is skipped.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const sdk = path.resolve(import.meta.dirname, "..");
const bin = path.join(sdk, "bin~");
const NUNIT_FRAMEWORK = "/usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll";
const DOC_WARNINGS = "1570,1571,1572,1573,1574,1580,1581,1584,1587,1589,1590,1592,1710,1711,1712,1723";
const DEBIAN_PACKAGES = "mono-mcs libmono-system-net-http4.0-cil nunit-console libnunit-framework2.6.3-cil";

const flags = new Set(process.argv.slice(2));
for (const flag of flags) {
  if (flag !== "--tests" && flag !== "--unity") fail(`unknown argument ${flag} (known: --tests, --unity)`);
}

function fail(message) {
  process.stderr.write(`${message.trimEnd()}\n`);
  process.exit(1);
}

function csFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...csFiles(full));
    else if (entry.isFile() && entry.name.endsWith(".cs")) out.push(full);
  }
  // Sorted, so the compiler sees the same order on every machine.
  return out.sort();
}

const mcsVersion = spawnSync("mcs", ["--version"], { encoding: "utf8" });
if (mcsVersion.error) {
  fail(
    `mcs (Mono's C# compiler) was not found: ${mcsVersion.error.message}.\n` +
      `On Debian/Ubuntu: sudo apt-get install -y ${DEBIAN_PACKAGES}`,
  );
}

mkdirSync(bin, { recursive: true });

/**
 * One mcs run. `inputs` are the files whose change needs a new output (sources and references);
 * the stamp beside the output records the exact command, so a removed file or a new flag also
 * rebuilds.
 */
function compile({ what, out, sources, references = [], options = [], warningsAreErrors = true }) {
  const args = [
    "-langversion:7.2",
    "-optimize",
    "-debug",
    "-nowarn:1591",
    // Doc-comment warnings (CS157x, CS158x, CS171x, CS1723) are shown, not fatal: the XML
    // documentation is for IDEs, its wording is no reason to refuse a build.
    ...(warningsAreErrors ? ["-warnaserror", `-warnaserror-:${DOC_WARNINGS}`] : []),
    ...options,
    ...references.map((r) => `-r:${r}`),
    `-out:${out}`,
    ...sources,
  ];
  const stamp = `${out}.inputs`;
  const command = JSON.stringify(args);
  const inputs = [...sources, ...references.filter((r) => path.isAbsolute(r) && existsSync(r)), import.meta.filename];
  if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, "utf8") === command) {
    const built = statSync(out).mtimeMs;
    if (inputs.every((f) => statSync(f).mtimeMs <= built)) {
      console.log(`${what}: up to date (${path.relative(process.cwd(), out)})`);
      return;
    }
  }
  const started = Date.now();
  const run = spawnSync("mcs", args, { encoding: "utf8", maxBuffer: 64 << 20 });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.trim();
  if (run.error || run.status !== 0) {
    let hint = "";
    if (/System\.Net\.Http/.test(output) && /CS0006|CS0012/.test(output))
      hint = `\n(System.Net.Http is missing: apt-get install libmono-system-net-http4.0-cil)`;
    if (/nunit\.framework/.test(output) && /CS0006/.test(output))
      hint = `\n(NUnit 2.6.3 is missing: apt-get install nunit-console libnunit-framework2.6.3-cil)`;
    fail(`${what}: mcs failed (exit ${run.status ?? run.error?.message})\n${output}${hint}`);
  }
  writeFileSync(stamp, command);
  // Warnings in the tests or the sample are shown, not fatal.
  if (output) console.log(output);
  console.log(`${what}: ${sources.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const runtime = csFiles(path.join(sdk, "Runtime"));
if (runtime.length === 0) fail(`no .cs files under ${path.join(sdk, "Runtime")}`);
const dll = path.join(bin, "GameBackend.dll");
compile({
  what: "GameBackend.dll",
  out: dll,
  sources: runtime,
  references: ["System.Net.Http.dll"],
  options: ["-target:library", `-doc:${path.join(bin, "GameBackend.xml")}`],
});

if (flags.has("--unity")) {
  const stubs = csFiles(path.join(sdk, "Tools~", "unity-stubs"));
  if (stubs.length === 0) {
    console.log("Unity compile: skipped (no sdk-csharp/Tools~/unity-stubs/*.cs yet)");
  } else {
    const unityBin = path.join(bin, "unity");
    mkdirSync(unityBin, { recursive: true });
    const engine = path.join(unityBin, "UnityEngine.dll");
    // The stubs stand in for Unity's API surface: their own warnings are not the SDK's.
    compile({
      what: "UnityEngine.dll (stub)",
      out: engine,
      sources: stubs,
      options: ["-target:library", "-nowarn:0067,0169,0414,0649"],
      warningsAreErrors: false,
    });
    compile({
      what: "GameBackend.dll (UNITY_5_3_OR_NEWER)",
      out: path.join(unityBin, "GameBackend.dll"),
      sources: runtime,
      references: ["System.Net.Http.dll", engine],
      options: ["-target:library", "-define:UNITY_5_3_OR_NEWER"],
    });
    const quickstart = csFiles(path.join(sdk, "Samples~", "Quickstart"));
    if (quickstart.length > 0) {
      // The MonoBehaviour sample a Unity game imports: it compiles against the SDK as Unity builds it.
      compile({
        what: "Quickstart sample (UNITY_5_3_OR_NEWER)",
        out: path.join(unityBin, "QuickstartSample.dll"),
        sources: quickstart,
        references: [path.join(unityBin, "GameBackend.dll"), engine],
        options: ["-target:library", "-define:UNITY_5_3_OR_NEWER"],
        warningsAreErrors: false,
      });
    }
  }
}

if (flags.has("--tests")) {
  const tests = csFiles(path.join(sdk, "Tests~"));
  if (tests.length === 0) {
    console.log("GameBackend.Tests.dll: skipped (no sdk-csharp/Tests~/**/*.cs)");
  } else {
    compile({
      what: "GameBackend.Tests.dll",
      out: path.join(bin, "GameBackend.Tests.dll"),
      sources: tests,
      references: [dll, NUNIT_FRAMEWORK, "System.Net.Http.dll"],
      options: ["-target:library"],
      warningsAreErrors: false,
    });
  }
  const sample = csFiles(path.join(sdk, "Samples~", "Headless"));
  if (sample.length === 0) {
    console.log("HeadlessSample.exe: skipped (no sdk-csharp/Samples~/Headless/*.cs)");
  } else {
    compile({
      what: "HeadlessSample.exe",
      out: path.join(bin, "HeadlessSample.exe"),
      sources: sample,
      references: [dll, "System.Net.Http.dll"],
      options: ["-target:exe"],
      warningsAreErrors: false,
    });
  }
}

const size = statSync(dll).size;
console.log(`GameBackend.dll: ${size} bytes (${(size / 1024).toFixed(1)} KiB)`);
console.log(dll);
