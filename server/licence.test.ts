import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");

describe("the licence", () => {
  it("LICENSE is the Apache License 2.0 and NOTICE names the project", () => {
    expect(read("LICENSE")).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(read("LICENSE")).toContain("END OF TERMS AND CONDITIONS");
    expect(read("NOTICE")).toMatch(/^Game Backend\n/);
  });

  it("every package.json in the repository says Apache-2.0 in its SPDX license field", () => {
    const manifests = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*package.json"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f.endsWith("package.json") && !f.includes("node_modules/"));
    expect(manifests).toEqual(expect.arrayContaining(["package.json", "sdk/package.json", "sdk-csharp/package.json"]));
    for (const file of manifests) expect((JSON.parse(read(file)) as { license?: unknown }).license, file).toBe("Apache-2.0");
  });

  it("both SDK packages carry the same licence text (npm packs sdk/LICENSE; Unity shows LICENSE.md)", () => {
    expect(read("sdk/LICENSE")).toBe(read("LICENSE"));
    expect(read("sdk-csharp/LICENSE.md")).toBe(read("LICENSE"));
  });
});
