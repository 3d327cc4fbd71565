#!/usr/bin/env node
// `prisma generate` after install. Prisma's schema engine cannot be downloaded everywhere;
// generation only needs a path to an executable, so point it at a stub unless one is set.
import { spawnSync } from "node:child_process";
import path from "node:path";

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.resolve("prisma/engine-stub.sh");
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], { stdio: "inherit", env });
process.exit(result.status ?? 1);
