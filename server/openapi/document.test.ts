import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_RESOURCES } from "../http/endpoints";
import { buildOpenApiDocument } from "./document";

const SNAPSHOT = path.join(import.meta.dirname, "openapi.snapshot.json");

const API_DIR = path.join(import.meta.dirname, "../../app/api/v1");

/** `/players/{id}/data` for app/api/v1/players/[id]/data/route.ts; catch-alls and the document itself are not endpoints. */
function routeFilePaths(): string[] {
  return (readdirSync(API_DIR, { recursive: true }) as string[])
    .filter((f) => f.endsWith("route.ts") && !f.includes("[...") && !f.startsWith("openapi.json"))
    .map((f) => `/${path.dirname(f).split(path.sep).join("/")}`.replace(/\[(\w+)\]/g, "{$1}"));
}

describe("the OpenAPI document", () => {
  it("is assembled from the endpoints the route files use: one route file per documented path and no undocumented one", () => {
    const documented = new Set(API_RESOURCES.flat().map((e) => e.path));
    expect([...documented].sort()).toEqual(routeFilePaths().sort());
    for (const file of routeFilePaths()) {
      const source = readFileSync(path.join(API_DIR, file.replace(/\{(\w+)\}/g, "[$1]"), "route.ts"), "utf8");
      expect(source, `${file} must pass an endpoint from server/http/endpoints to defineRoute`).not.toMatch(/defineRoute\(\{/);
    }
  });

  it("names every schema component (one JsonValue for any JSON, no generated __schemaN)", () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    const names = Object.keys(doc.components.schemas);
    expect(names.filter((n) => n.startsWith("__schema"))).toEqual([]);
    expect(names).toContain("JsonValue");
  });

  it("equals the committed snapshot (an API change needs `npm run openapi:snapshot` and shows in review)", () => {
    const current = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI_SNAPSHOT === "1") writeFileSync(SNAPSHOT, current);
    expect(current === readFileSync(SNAPSHOT, "utf8"), "the document changed: run `npm run openapi:snapshot` and review the diff").toBe(
      true,
    );
  });
});
