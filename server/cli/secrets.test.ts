import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const module = path.resolve(__dirname, "secrets.mjs");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("loadSecrets", () => {
  it("eight launchers starting at once on an empty data directory all get the secrets the file holds", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gb-secrets-"));
    dirs.push(dir);
    // Each process loads the module, then spins until the same instant, so the eight really race.
    const at = Date.now() + 1_500;
    const script = `import(${JSON.stringify(module)}).then((m) => { while (Date.now() < ${at}); process.stdout.write(JSON.stringify(m.loadSecrets(${JSON.stringify(dir)}))); })`;
    const outputs = await Promise.all(Array.from({ length: 8 }, () => run(process.execPath, ["-e", script])));
    const onDisk = JSON.parse(readFileSync(path.join(dir, "secrets.json"), "utf8"));
    expect(onDisk.jwtSecret).toMatch(/^[\w-]{43}$/);
    for (const { stdout } of outputs) expect(JSON.parse(stdout)).toEqual(onDisk);
  });
});
