import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";
import { makeProject, type TestProject } from "../support/fixtures";

/**
 * A game client that forgot the /api/v1 prefix is told where the API lives, in the API's error
 * shape; a browser asking for a missing page still gets the HTML 404 page.
 */
describe("requests without the /api/v1 prefix", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await makeProject();
  });

  it("a POST /auth/anonymous with an X-API-Key answers the JSON 404 naming /api/v1/auth/anonymous", async () => {
    const res = await fetch(`${baseUrl()}/auth/anonymous`, {
      method: "POST",
      headers: { "X-API-Key": project.clientKey, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({
      error: {
        code: "NOT_FOUND",
        message: "No route here. The game API lives under /api/v1: try /api/v1/auth/anonymous.",
        details: {},
      },
    });
  });

  it("a GET asking for JSON (Accept: application/json, no key) answers the JSON 404 with the hint", async () => {
    const res = await fetch(`${baseUrl()}/leaderboards/high-scores`, { headers: { Accept: "application/json" } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("NOT_FOUND");
    expect(body.error.message).toContain("/api/v1/leaderboards/high-scores");
  });

  it("a browser's GET of a missing page (Accept: text/html) still gets the HTML 404 page", async () => {
    const res = await fetch(`${baseUrl()}/auth/anonymous`, {
      headers: { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/html");
  });
});
