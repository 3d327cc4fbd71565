import { randomBytes } from "node:crypto";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect, inject } from "vitest";

/**
 * HTTP client for the suite. Every /api/v1 response it sees is checked against the served
 * OpenAPI document: status documented for the operation, body matching its schema.
 */
export const baseUrl = (): string => inject("baseUrl");

type OpenApiDoc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
};

let docPromise: Promise<{ doc: OpenApiDoc; ajv: Ajv2020 }> | undefined;
function openApi() {
  docPromise ??= (async () => {
    const doc = (await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as OpenApiDoc;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, "openapi.json");
    return { doc, ajv };
  })();
  return docPromise;
}

function templateFor(doc: OpenApiDoc, pathname: string): string | undefined {
  const rel = pathname.replace(/^\/api\/v1/, "");
  const candidates = Object.keys(doc.paths).filter((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return pattern.test(rel);
  });
  // Prefer the template with the most literal segments (/players/me/data over /players/{id}/data).
  return candidates.sort((a, b) => b.replace(/\{[^}]+\}/g, "").length - a.replace(/\{[^}]+\}/g, "").length)[0];
}

const pointerEscape = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export async function checkAgainstDocument(method: string, pathname: string, status: number, body: unknown): Promise<void> {
  if (!pathname.startsWith("/api/v1/") || pathname === "/api/v1/openapi.json" || method === "OPTIONS") return;
  const { doc, ajv } = await openApi();
  const template = templateFor(doc, pathname);
  if (!template) return; // unknown paths: the 404 catch-all, checked by its own tests
  const operation = doc.paths[template]?.[method.toLowerCase()];
  if (!operation) return; // a 405 for a method the path does not have
  const response = operation.responses[String(status)];
  expect(response, `${method} ${template} answered ${status}, which the OpenAPI document does not list`).toBeDefined();
  if (status === 204 || !response?.content) return;
  const ref = `openapi.json#/paths/${pointerEscape(template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const valid = validate(body);
  expect(
    valid,
    `${method} ${template} ${status} body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
  ).toBe(true);
}

export type ApiResponse<T = unknown> = { status: number; headers: Headers; body: T; text: string };

export type ApiOptions = {
  key?: string | null;
  token?: string | null;
  /** JSON body; a string is sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Source IP as seen through X-Forwarded-For (the test server trusts it). */
  ip?: string;
};

const FILE_IP = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

export async function api<T = Record<string, unknown>>(method: string, path: string, o: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "X-Forwarded-For": o.ip ?? FILE_IP, ...o.headers };
  if (o.key) headers["X-API-Key"] = o.key;
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  let payload: string | undefined;
  if (o.body !== undefined) {
    payload = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
    headers["Content-Type"] ??= "application/json";
  }
  const res = await fetch(`${baseUrl()}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown = null;
  if (text && res.headers.get("content-type")?.includes("json")) body = JSON.parse(text);
  await checkAgainstDocument(method, new URL(res.url).pathname, res.status, body);
  return { status: res.status, headers: res.headers, body: body as T, text };
}

/** Asserts the one error shape and the code. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: { code } } });
  const error = (res.body as { error: Record<string, unknown> }).error;
  expect(typeof error.message).toBe("string");
  expect(error.details).toBeTypeOf("object");
  expect(res.headers.get("x-request-id")).toBeTruthy();
}
