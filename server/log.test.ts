import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const module = path.resolve(__dirname, "log.mjs");

/** Logs one line from a fresh process (the logger is made once per process) and exits at once. */
async function logged(
  env: Record<string, string>,
  line = `m.logger("test").info({ a: 1, password: "hunter2", nested: { token: "t0k" } }, "hello")`,
) {
  const script = `import(${JSON.stringify(module)}).then((m) => { ${line}; process.exit(0); })`;
  const { stdout } = await run(process.execPath, ["-e", script], { env: childEnv(env) });
  return stdout;
}

/** This process's environment without the logger's settings, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_ENV: _unset, LOG_LEVEL: _level, LOG_FORMAT: _format, ...base } = process.env;
  return { ...base, ...env } as NodeJS.ProcessEnv;
}

describe("the logger", () => {
  it("writes one JSON line with level, time, component and message, even when the process exits right after", async () => {
    const [line, ...rest] = (await logged({})).trim().split("\n");
    expect(rest).toEqual([]);
    expect(JSON.parse(line ?? "")).toMatchObject({
      level: "info",
      time: expect.stringMatching(/Z$/),
      component: "test",
      a: 1,
      msg: "hello",
    });
  });

  it("redacts fields named password and token", async () => {
    const line = JSON.parse((await logged({})).trim());
    expect([line.password, line.nested.token]).toEqual(["[redacted]", "[redacted]"]);
  });

  it("writes nothing below LOG_LEVEL", async () => {
    expect(await logged({ LOG_LEVEL: "warn" })).toBe("");
  });

  it("is human-readable, not JSON, in development", async () => {
    const out = await logged({ NODE_ENV: "development" });
    expect(out).toMatch(/INFO.*hello/);
    expect(() => JSON.parse(out.trim())).toThrow();
  });

  it("a line writer's line has the logger's shape and its fields as given", async () => {
    const out = await logged(
      { GAME_BACKEND_WORKER_INDEX: "1" },
      `m.lineWriter("http").write("error", '"requestId":' + JSON.stringify('a"b'), "request")`,
    );
    expect(JSON.parse(out.trim())).toEqual({
      level: "error",
      time: expect.stringMatching(/Z$/),
      pid: expect.any(Number),
      worker: 1,
      component: "http",
      requestId: 'a"b',
      msg: "request",
    });
  });

  it("a buffered line reaches the output within LOG_FLUSH_MS while the process keeps running", async () => {
    const script = `import(${JSON.stringify(module)}).then((m) => { m.logger("test").info("buffered"); setTimeout(() => {}, 20000); })`;
    const child = spawn(process.execPath, ["-e", script], { env: childEnv({ LOG_FLUSH_MS: "50" }) });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += String(d);
          if (out.includes("\n")) resolve(out);
        });
        child.on("exit", () => reject(new Error(`exited before writing: ${out}`)));
      });
      expect(JSON.parse(line.trim()).msg).toBe("buffered");
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });
});
