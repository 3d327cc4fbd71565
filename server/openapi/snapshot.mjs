#!/usr/bin/env node
// `npm run openapi:snapshot`: writes the OpenAPI document as the app serves it to
// server/openapi/openapi.snapshot.json. The unit test server/openapi/document.test.ts fails
// while the served document and the committed snapshot differ, so every API change — a field
// removed or narrowed above all — shows up in review as a diff of this file.
import { spawnSync } from "node:child_process";

const result = spawnSync(
  process.execPath,
  ["node_modules/vitest/vitest.mjs", "run", "--project", "unit", "server/openapi/document.test.ts"],
  {
    stdio: "inherit",
    env: { ...process.env, UPDATE_OPENAPI_SNAPSHOT: "1" },
  },
);
process.exit(result.status ?? 1);
