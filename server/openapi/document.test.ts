import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document";

const SNAPSHOT = path.join(import.meta.dirname, "openapi.snapshot.json");

describe("the OpenAPI document", () => {
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
