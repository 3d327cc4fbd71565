#!/usr/bin/env node
// Builds @game-backend/client: types generated from the OpenAPI document the server serves
// (server/openapi/openapi.snapshot.json, which a unit test keeps identical to the served one),
// then tsc to ESM + declarations in dist/. A contract change therefore breaks this typecheck.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const sdk = path.resolve(import.meta.dirname, "..");
const root = path.resolve(sdk, "..");
const require = createRequire(path.join(root, "package.json"));

export async function generateTypes() {
  const { default: openapiTS, astToString } = await import("openapi-typescript");
  const document = JSON.parse(readFileSync(path.join(root, "server/openapi/openapi.snapshot.json"), "utf8"));
  // A default in a request schema means the field may be left out, not that it must be sent.
  const ast = await openapiTS(document, { defaultNonNullable: false });
  const header = "// Generated from server/openapi/openapi.snapshot.json by sdk/scripts/build.mjs. Do not edit.\n";
  mkdirSync(path.join(sdk, "src/generated"), { recursive: true });
  writeFileSync(path.join(sdk, "src/generated/schema.ts"), header + astToString(ast));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await generateTypes();
  if (!process.argv.includes("--types-only")) {
    rmSync(path.join(sdk, "dist"), { recursive: true, force: true });
    const tsc = require.resolve("typescript/bin/tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", path.join(sdk, "tsconfig.json")], { stdio: "inherit" });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
