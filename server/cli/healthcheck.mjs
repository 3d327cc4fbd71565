#!/usr/bin/env node
// The image's HEALTHCHECK (`healthcheck` command): GET /api/health/ready on this instance, exit 0
// when it answers 200 (ready), 1 otherwise (starting, draining, database unreachable, no answer).
// Plain node, no curl in the image; the same PORT and HOST the launcher listens on.
import { parseEnv, ZEnv } from "../env-schema.mjs";

const TIMEOUT_MS = 3_000;

const { PORT, HOST } = parseEnv(ZEnv.pick({ PORT: true, HOST: true }), process.env);
// A wildcard address is not one to connect to: this instance answers on loopback then.
const host = HOST === "0.0.0.0" ? "127.0.0.1" : HOST === "::" ? "[::1]" : HOST.includes(":") ? `[${HOST}]` : HOST;
const url = `http://${host}:${PORT}/api/health/ready`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = (await res.text()).replace(/\s+/g, " ").slice(0, 200);
  process.stdout.write(`GET ${url}: ${res.status} ${body}\n`);
  process.exitCode = res.status === 200 ? 0 : 1;
} catch (error) {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  process.stdout.write(`GET ${url}: no answer (${cause})\n`);
  process.exitCode = 1;
}
