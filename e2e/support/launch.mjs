// The one way tests, benchmarks and load scripts start the product: `node server/cli/start.mjs`
// (what `npm start` runs) as a child process, waiting until it says it is ready. Plain JS so that
// the benchmark scripts run under plain `node`; typed for the TypeScript tests by launch.d.mts.
import { spawn } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");

/**
 * Below Linux's ephemeral range (32768–60999, /proc/sys/net/ipv4/ip_local_port_range): a port
 * handed out there is free now but may be taken by any outgoing connection (a fetch, a pool's
 * Postgres connection) before the program it is meant for binds it, which on a busy suite is
 * seconds later (an embedded Postgres binds after initdb). Outgoing connections never take a port
 * below that range, so only another test's pick can collide, and the bind below rules that out.
 */
const PORT_RANGE = { from: 20_000, to: 32_767 };

/** A loopback port free now, outside the range the kernel gives outgoing connections. */
export async function freePort() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to}`);
}

/** @param {number} port */
function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * Starts the launcher with the given environment on top of this process's (a value of
 * `undefined` or "" unsets a variable), on a free loopback port unless PORT is given. With
 * `logFile`, the app writes its output to that file, as `npm start > app.log` would, instead of a
 * pipe this process reads: a benchmark then does not charge its own reading of the access lines
 * (on the same cores as the load generator) to the app.
 */
export async function launchApp({
  env = {},
  nodeArgs = [],
  args = [],
  timeoutMs = 600_000,
  logFile,
  execPath = process.execPath,
  cwd = root,
} = {}) {
  const port = Number(env.PORT || (await freePort()));
  const childEnv = {};
  for (const [name, value] of Object.entries({ ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env })) {
    if (value !== undefined && value !== "") childEnv[name] = value;
  }
  const logFd = logFile ? openSync(logFile, "a") : undefined;
  const child = spawn(execPath, [...nodeArgs, "server/cli/start.mjs", ...args], {
    cwd,
    env: childEnv,
    // The IPC channel carries the launcher's "ready" (server/cli/start.mjs, announceReady), whatever LOG_LEVEL is.
    stdio: ["ignore", logFd ?? "pipe", logFd ?? "pipe", "ipc"],
  });
  if (logFd !== undefined) closeSync(logFd); // the child holds its own copy
  let ready = false;
  child.on("message", (m) => {
    if (m?.gb === "launcher-ready") ready = true;
  });
  // Access lines make a busy app's output large (a benchmark writes hundreds of MB): keep the
  // first MiB (the start) and the last 8 MiB (what a test looks for after its requests).
  let head = "";
  let tail = "";
  let dropped = 0;
  const keep = (d) => {
    const text = String(d);
    if (head.length < 1 << 20) head += text;
    else tail += text;
    if (tail.length > 16 << 20) {
      dropped += tail.length - (8 << 20);
      tail = tail.slice(-(8 << 20));
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const output = logFile
    ? () => fileOutput(logFile)
    : () => (dropped ? `${head}\n[… ${dropped} characters of output dropped …]\n${tail.slice(tail.indexOf("\n") + 1)}` : head + tail);
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(check);
      reject(new Error(`app did not start in ${timeoutMs} ms:\n${readable(output())}`));
    }, timeoutMs);
    const check = setInterval(() => {
      if (!ready) return;
      clearInterval(check);
      clearTimeout(timer);
      resolve();
    }, 50);
    void exited.then((code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before it was ready:\n${readable(output())}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    child,
    output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** A log file's first MiB and last 8 MiB, like a piped app's kept output (a benchmark's log runs to hundreds of MB). */
function fileOutput(file) {
  const size = statSync(file).size;
  const fd = openSync(file, "r");
  try {
    const read = (start, length) => {
      const buffer = Buffer.alloc(length);
      return buffer.toString("utf8", 0, readSync(fd, buffer, 0, length, start));
    };
    if (size <= 9 << 20) return read(0, size);
    const tail = read(size - (8 << 20), 8 << 20);
    return `${read(0, 1 << 20)}\n[… ${size - (9 << 20)} bytes of output dropped …]\n${tail.slice(tail.indexOf("\n") + 1)}`;
  } finally {
    closeSync(fd);
  }
}

/**
 * Polls `probe` until it returns something other than undefined or false; throws naming `what` after `timeoutMs`.
 * For effects that trail the answer on purpose: log lines (written asynchronously), exported spans.
 */
export async function until(what, probe, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The first log line of an app that matches `predicate`, waiting for it (lines are written asynchronously). */
export function logLine(app, what, predicate, timeoutMs) {
  return until(what, () => logLines(app.output()).find(predicate), timeoutMs);
}

/** The JSON log lines (pino) in an app's output, parsed; other lines (the demo banner, Postgres) skipped. */
export function logLines(text) {
  const lines = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // a line cut by the buffer: not a whole log line yet
    }
  }
  return lines;
}

/** An app's output for a person: each JSON log line as "[component] msg", other lines as they are. */
export function readable(text) {
  return text
    .split("\n")
    .map((line) => {
      const [parsed] = logLines(line);
      return parsed
        ? `[${parsed.component ?? parsed.level}] ${parsed.msg ?? ""}${parsed.err ? ` ${parsed.err.stack ?? parsed.err.message}` : ""}`
        : line;
    })
    .join("\n");
}
