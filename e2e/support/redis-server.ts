import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./global-setup";

/**
 * A private, real redis-server (the machine's binary) on its own port, for tests that stop and
 * restart the store without touching the Redis other test files use.
 */
export type PrivateRedis = { url: string; port: number; stop: () => Promise<void>; start: () => Promise<void>; client: () => Redis };

/** `debugCommand`: allow DEBUG SLEEP (Redis 7 refuses it by default), to make the store really slow. */
export async function privateRedis(o: { debugCommand?: boolean } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    if (o.debugCommand) args.push("--enable-debug-command", "yes");
    child = spawn("redis-server", args, { stdio: "ignore" });
    const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: 1 });
    probe.on("error", () => {});
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect();
        await probe.ping();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    probe.disconnect();
  };
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child?.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, client: () => new Redis({ port, host: "127.0.0.1" }) };
}
