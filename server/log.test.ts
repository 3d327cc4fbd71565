import { execFile } from "node:child_process";
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
  const { NODE_ENV: _unset, LOG_LEVEL: _level, LOG_FORMAT: _format, ...base } = process.env;
  const { stdout } = await run(process.execPath, ["-e", script], { env: { ...base, ...env } as NodeJS.ProcessEnv });
  return stdout;
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
});
