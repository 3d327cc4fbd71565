import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "./safe-redirect";

const ORIGIN = "https://games.example.com";

describe("safeRedirectPath", () => {
  it.each([
    "/\t/evil.com",
    "/\n/evil.com",
    "/\r\n/evil.com",
    "/\\evil.com",
    "\\\\evil.com",
    "//evil.com",
    "///evil.com",
    "/%09/evil.com",
    "/%0a/evil.com",
    "/%2F/evil.com",
    "%2F%2Fevil.com",
    "/%5Cevil.com",
    "https://evil.com/projects",
    "https://games.example.com.evil.com/projects",
    "https://games.example.com@evil.com/",
    "http://games.example.com/projects",
    "javascript:alert(1)",
    "data:text/html,hi",
    "evil.com",
    "\t//evil.com",
    " //evil.com",
    "/%E0%A4%A",
    "",
  ])("L2: %j stays on this site (answers the fallback)", (attack) => {
    expect(safeRedirectPath(attack, ORIGIN)).toBe("/projects");
  });

  it.each([
    ["/projects/abc?tab=keys#top", "/projects/abc?tab=keys#top"],
    ["/tokens", "/tokens"],
    ["https://games.example.com/account", "/account"],
    ["/login/../projects", "/projects"],
  ])("L2: a path on this site (%j) is kept as %j", (input, expected) => {
    expect(safeRedirectPath(input, ORIGIN)).toBe(expected);
  });

  it("L2: a value that is not a string answers the fallback", () => {
    expect(safeRedirectPath(undefined, ORIGIN, "/")).toBe("/");
    expect(safeRedirectPath(["/projects"], ORIGIN, "/")).toBe("/");
  });
});
