import { describe, expect, it } from "vitest";
import { nodeVersionProblem } from "./node-version.mjs";

describe("the launcher's Node version check", () => {
  it("accepts Node 24 and newer", () => {
    expect(nodeVersionProblem("v24.0.0", "/x/node")).toBeNull();
    expect(nodeVersionProblem("v26.1.2", "/x/node")).toBeNull();
  });

  it("names the version, the binary and the way out for an older Node, in one line", () => {
    const line = nodeVersionProblem("v20.20.2", "/usr/bin/node");
    expect(line).toContain("needs Node.js 24 or newer; this is v20.20.2 (/usr/bin/node)");
    expect(line).toContain("npm start");
    expect(line).not.toContain("\n");
  });

  it("is what this suite runs on: npm test runs on Node 24 or newer", () => {
    expect(nodeVersionProblem()).toBeNull();
  });
});
