import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./document";

describe("the OpenAPI document", () => {
  it("names every schema component (one JsonValue for any JSON, no generated __schemaN)", () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    const names = Object.keys(doc.components.schemas);
    expect(names.filter((n) => n.startsWith("__schema"))).toEqual([]);
    expect(names).toContain("JsonValue");
  });
});
