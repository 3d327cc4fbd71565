import { z } from "zod";

/**
 * Any JSON value, as one named component (`JsonValue`) in the OpenAPI document. Every schema
 * that holds arbitrary JSON uses this one instance. `z.json()` is a lazy schema that refers to
 * an unnamed copy of itself, which the document repeats as `__schema0`…`__schemaN`; clients
 * generated from that (openapi-typescript + openapi-fetch) cannot type request bodies. Here the
 * recursion refers to the named instance, and the document renders it as the plain "any JSON
 * value" schema (every JSON value is valid; the request path has already parsed the body).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const ZJsonValue: z.ZodType<JsonValue> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(ZJsonValue), z.record(z.string(), ZJsonValue)]))
  .meta({
    id: "JsonValue",
    description: "Any JSON value: object, array, string, number, boolean or null.",
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      for (const key of Object.keys(jsonSchema)) if (key !== "description") delete jsonSchema[key];
    },
  });
