#!/usr/bin/env node
// `npm run sdk:check-consumer [-- --base-url URL --api-key KEY]`: what a studio does with the SDK.
// Packs sdk/ (npm pack), installs the tarball into an empty folder, typechecks a small game
// script under moduleResolution "bundler" (with the DOM) and "nodenext" (Node's types only),
// then runs it against a server: by default `npm start`'s demo (its key from .data/demo.json).
// Prints one JSON line; exits 1 on any failure.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const sdk = path.resolve(import.meta.dirname, "..");
const root = path.resolve(sdk, "..");
const args = process.argv.slice(2);
const arg = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

function demo() {
  const file = path.join(process.env.DATA_DIR ?? path.join(root, ".data"), "demo.json");
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, "utf8"));
}
const baseUrl = arg("base-url") ?? demo().baseUrl ?? "http://localhost:3000";
const apiKey = arg("api-key") ?? demo().apiKey;
const board = arg("board") ?? "high-scores";
const purchase = arg("purchase") ?? "buy-potion";
if (!apiKey) {
  console.error("No API key: start the demo with `npm start` (it writes .data/demo.json) or pass --api-key.");
  process.exit(1);
}

const CONSUMER = `import { createClient, GameApiError, type LeaderboardPage, type Session } from "@game-backend/client";

const [baseUrl, apiKey, board, purchase] = process.argv.slice(2) as [string, string, string, string];
const game = createClient({ baseUrl, apiKey });
const session: Session = await game.auth.anonymous();
await game.players.update({ displayName: "Consumer" });
const settings = await game.data.set("settings", { sound: true });
const save = await game.saves.put("slot-1", { level: 3 }, { meta: { label: "Level 3" } });
const entry = await game.leaderboards.submit(board, 1234);
const page: LeaderboardPage = await game.leaderboards.page(board, { limit: 5 });
const bought = await game.economy.purchase(purchase);
let missing = "";
try {
  await game.saves.get("no-such-slot");
} catch (error) {
  if (error instanceof GameApiError) missing = error.code;
}
console.log(JSON.stringify({ playerId: session.playerId, settingsVersion: settings.version, saveVersion: save.version, rank: entry.rank, total: page.total, balances: bought.balances, missing }));
`;

const tsconfig = (moduleResolution, extra) =>
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: moduleResolution === "nodenext" ? "nodenext" : "esnext",
      moduleResolution,
      strict: true,
      noEmit: moduleResolution !== "nodenext",
      outDir: "out",
      skipLibCheck: false,
      ...extra,
    },
    files: ["game.mts"],
  });

function sh(command, commandArgs, cwd) {
  return execFileSync(command, commandArgs, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

const dir = mkdtempSync(path.join(tmpdir(), "gb-sdk-consumer-"));
try {
  // Packs the dist/ that `npm install` (postinstall) or `npm run sdk:build` made; builds only if there is none.
  if (!existsSync(path.join(sdk, "dist/index.js"))) sh(process.execPath, [path.join(sdk, "scripts/build.mjs")], root);
  const tarball = sh("npm", ["pack", sdk, "--pack-destination", dir, "--silent"], root).trim().split("\n").at(-1);
  const app = path.join(dir, "game");
  mkdirSync(app);
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "my-game", private: true, type: "module" }));
  sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(dir, tarball)], app);
  writeFileSync(path.join(app, "game.mts"), CONSUMER);
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  const typeRoots = [path.join(root, "node_modules/@types")];
  writeFileSync(path.join(app, "tsconfig.bundler.json"), tsconfig("bundler", { lib: ["ES2022", "DOM"], types: ["node"], typeRoots }));
  writeFileSync(path.join(app, "tsconfig.nodenext.json"), tsconfig("nodenext", { lib: ["ES2022"], types: ["node"], typeRoots }));
  for (const config of ["tsconfig.bundler.json", "tsconfig.nodenext.json"]) {
    try {
      sh(process.execPath, [tsc, "-p", config], app);
    } catch (error) {
      throw new Error(`typecheck with ${config} failed:\n${error.stdout}${error.stderr}`);
    }
  }
  const output = sh(process.execPath, [path.join(app, "out/game.mjs"), baseUrl, apiKey, board, purchase], app).trim();
  const result = JSON.parse(output.split("\n").at(-1));
  console.log(JSON.stringify({ ok: true, tarball, typechecked: ["bundler", "nodenext"], baseUrl, ...result }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error?.message ?? error) }));
  process.exitCode = 1;
} finally {
  if (!args.includes("--keep")) rmSync(dir, { recursive: true, force: true });
  else console.error(`kept ${dir}`);
}
