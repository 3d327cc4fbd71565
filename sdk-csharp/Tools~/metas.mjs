#!/usr/bin/env node
// Writes the .meta file of every asset Unity imports from this package, or checks them.
//
//   node sdk-csharp/Tools~/metas.mjs           write missing and stale metas, delete orphaned ones
//   node sdk-csharp/Tools~/metas.mjs --check   change nothing; exit 1 listing missing, stale and orphaned metas
//
// Why: a package installed by git URL is immutable in Unity, which ignores any file or folder
// there without a .meta (it cannot write one). So every file and folder of the package that
// Unity imports has a committed .meta: everything but hidden names (".x"), names ending in "~"
// and whatever is inside such a folder (Samples~, Tests~, Tools~). Files git ignores (the build
// output in bin~/) are not part of a git install and get none.
//
// GUIDs are derived from the path (md5 of "com.gamebackend.client/" + the path relative to the
// package root), so the same file always gets the same GUID and a regenerated meta never differs.
// Moving or renaming a file changes its GUID: fine for this package, whose assets nothing
// references by GUID (the sample is copied into the game's Assets/ with fresh metas by Unity).
// The YAML is what Unity 2021.3 writes for each importer, byte for byte (trailing spaces included).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "com.gamebackend.client";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");

/** Hidden, or ends in "~" (Unity ignores the name and, for a folder, everything inside). */
const ignoredName = (name) => name.startsWith(".") || name.endsWith("~");
const imported = (rel) => rel.split("/").every((part) => !ignoredName(part));

export function guidOf(rel) {
  return createHash("md5").update(`${PACKAGE_NAME}/${rel}`).digest("hex");
}

const TAIL = "  userData: \n  assetBundleName: \n  assetBundleVariant: \n";

export function metaFor(rel, isFolder) {
  const head = `fileFormatVersion: 2\nguid: ${guidOf(rel)}\n`;
  if (isFolder) return `${head}folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n${TAIL}`;
  const name = rel.split("/").pop();
  if (name.endsWith(".cs"))
    return `${head}MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n${TAIL}`;
  if (name.endsWith(".asmdef")) return `${head}AssemblyDefinitionImporter:\n  externalObjects: {}\n${TAIL}`;
  if (rel === "package.json") return `${head}PackageManifestImporter:\n  externalObjects: {}\n${TAIL}`;
  if (/\.(md|json|txt)$/.test(name)) return `${head}TextScriptImporter:\n  externalObjects: {}\n${TAIL}`;
  return `${head}DefaultImporter:\n  externalObjects: {}\n${TAIL}`;
}

/** The package's files (relative, "/"-separated) that a git install would contain: tracked or new, not ignored. */
function packageFiles() {
  let listed;
  try {
    listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .split("\0")
      .filter(Boolean);
  } catch {
    listed = walk(root).filter((rel) => rel.split("/")[0] !== "bin~"); // no git: skip the build output by name
  }
  return [...new Set(listed)].filter((rel) => existsSync(join(root, rel)) && statSync(join(root, rel)).isFile()).sort();
}

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else if (entry.isFile()) out.push(relative(root, full).split(sep).join("/"));
  }
  return out;
}

function plan() {
  const files = packageFiles();
  const metas = new Set(files.filter((rel) => rel.endsWith(".meta")));
  const assets = new Map(); // rel -> isFolder
  for (const rel of files) {
    if (rel.endsWith(".meta") || !imported(rel)) continue;
    assets.set(rel, false);
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) assets.set(parts.slice(0, i).join("/"), true);
  }
  const missing = [];
  const stale = [];
  for (const [rel, isFolder] of [...assets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = `${rel}.meta`;
    const want = metaFor(rel, isFolder);
    if (!existsSync(join(root, path))) missing.push({ path, want });
    else if (readFileSync(join(root, path), "utf8") !== want) stale.push({ path, want });
  }
  const orphaned = [...metas].filter((path) => !assets.has(path.slice(0, -".meta".length))).sort();
  return { assets, missing, stale, orphaned };
}

function main() {
  const { assets, missing, stale, orphaned } = plan();
  if (check) {
    const problems = [
      ...missing.map((m) => `missing   ${m.path}`),
      ...stale.map((m) => `stale     ${m.path}`),
      ...orphaned.map((path) => `orphaned  ${path}`),
    ];
    if (problems.length === 0) {
      console.log(`metas: ${assets.size} assets, every .meta present and current`);
      return;
    }
    console.error(`metas: ${problems.length} problem(s) in sdk-csharp (run: node sdk-csharp/Tools~/metas.mjs)\n  ${problems.join("\n  ")}`);
    process.exitCode = 1;
    return;
  }
  for (const m of [...missing, ...stale]) writeFileSync(join(root, m.path), m.want);
  for (const path of orphaned) unlinkSync(join(root, path));
  console.log(
    `metas: ${assets.size} assets; wrote ${missing.length} new, rewrote ${stale.length} stale, removed ${orphaned.length} orphaned`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
