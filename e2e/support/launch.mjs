// The one way tests, benchmarks and load scripts start the product: `node server/cli/start.mjs`
// (what `npm start` runs) as a child process, waiting until it says it is ready. Plain JS so that
// the benchmark scripts run under plain `node`; typed for the TypeScript tests by launch.d.mts.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Starts the launcher with the given environment on top of this process's (a value of
 * `undefined` or "" unsets a variable), on a free loopback port unless PORT is given.
 */
export async function launchApp({ env = {}, nodeArgs = [], timeoutMs = 600_000 } = {}) {
  const port = Number(env.PORT || (await freePort()));
  const childEnv = {};
  for (const [name, value] of Object.entries({ ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env })) {
    if (value !== undefined && value !== "") childEnv[name] = value;
  }
  const child = spawn(process.execPath, [...nodeArgs, "server/cli/start.mjs"], {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => {
    output += d;
  });
  child.stderr.on("data", (d) => {
    output += d;
  });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(check);
      reject(new Error(`app did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = setInterval(() => {
      if (!output.includes("[start] ready on")) return;
      clearInterval(check);
      clearTimeout(timer);
      resolve();
    }, 50);
    void exited.then((code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
