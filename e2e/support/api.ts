import { randomBytes } from "node:crypto";
import { request } from "node:http";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect, inject } from "vitest";
import { ERRORS, type ErrorCode } from "@/server/errors";

/**
 * HTTP client for the suite. Every /api/v1 response it sees is checked against the served
 * OpenAPI document: status documented for the operation, body matching its schema.
 */
export const baseUrl = (): string => inject("baseUrl");

/** Waits out the app's definition caches (DEFINITION_CACHE_TTL_MS, shortened for the suite): a definition change made by a test is then what the app reads. */
export const definitionCachesExpired = (): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, inject("definitionCacheTtlMs") + 50));

/** Waits out the app's session cache (SESSION_CACHE_TTL_SECONDS, shortened for the suite): a ban or revocation the test process made is then what the app reads. */
export const sessionCachesExpired = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, inject("sessionCacheTtlMs") + 50));

/** One sample's value in a Prometheus exposition text (0 while the series does not exist yet). */
export function metricSample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

type OpenApiDoc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }> }>
  >;
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

const RATE_LIMIT_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit-policy", "ratelimit"];

/**
 * Headers every answer must carry (X-Request-Id under /api; the rate-limit headers on /api/v1
 * when limits are on), the headers the operation documents for this status (ETag), and an error code
 * that belongs to the status in the one error table.
 */
export async function checkHeadersAndCode(
  method: string,
  pathname: string,
  res: { status: number; headers: Headers; body: unknown },
  limitsOn: boolean,
): Promise<void> {
  if (!pathname.startsWith("/api/")) return;
  expect(res.headers.get("x-request-id"), `${method} ${pathname}: X-Request-Id`).toBeTruthy();
  if (!pathname.startsWith("/api/v1/") || method === "OPTIONS") return; // preflights need no key and count against nothing
  if (limitsOn) for (const h of RATE_LIMIT_HEADERS) expect(res.headers.get(h), `${method} ${pathname} ${res.status}: ${h}`).not.toBeNull();
  const error = (res.body as { error?: { code?: string } } | null)?.error;
  if (res.status >= 400) {
    expect(error?.code, `${method} ${pathname} ${res.status}: error body`).toBeTypeOf("string");
  }
  if (error?.code) {
    const code = error.code;
    expect(Object.hasOwn(ERRORS, code), `unknown error code ${code}`).toBe(true);
    expect(ERRORS[code as ErrorCode].status, `${code} answered with ${res.status}`).toBe(res.status);
  }
  if (pathname === "/api/v1/openapi.json") return;
  const { doc } = await openApi();
  const template = templateFor(doc, pathname);
  const documented = template ? doc.paths[template]?.[method.toLowerCase()]?.responses[String(res.status)] : undefined;
  if (documented?.headers && JSON.stringify(documented.headers.ETag ?? "").includes("HashETag")) {
    // A hash of the answer (GET /config): strong, quoted.
    expect(res.headers.get("etag"), `${method} ${template} ${res.status}: ETag`).toMatch(/^"[A-Za-z0-9_-]+"$/);
  } else if (documented?.headers && Object.hasOwn(documented.headers, "ETag")) {
    // The ETag is the version of the record or save in the body, as If-Match takes it back.
    const version = (res.body as { version?: unknown } | null)?.version;
    expect(res.headers.get("etag"), `${method} ${template} ${res.status}: ETag`).toBe(`"${String(version)}"`);
  }
}

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
  /** The app asked (a dedicated app's baseUrl); the suite's app by default. */
  base?: string;
};

const FILE_IP = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

function requestHeaders(o: ApiOptions): { headers: Record<string, string>; payload: string | undefined } {
  const headers: Record<string, string> = { "X-Forwarded-For": o.ip ?? FILE_IP, ...o.headers };
  if (o.key) headers["X-API-Key"] = o.key;
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  let payload: string | undefined;
  if (o.body !== undefined) {
    payload = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
    headers["Content-Type"] ??= "application/json";
  }
  return { headers, payload };
}

async function checked<T>(
  method: string,
  pathname: string,
  status: number,
  headers: Headers,
  text: string,
  limited = true,
): Promise<ApiResponse<T>> {
  let body: unknown = null;
  if (text && headers.get("content-type")?.includes("json")) body = JSON.parse(text);
  await checkAgainstDocument(method, pathname, status, body);
  await checkHeadersAndCode(method, pathname, { status, headers, body }, limited);
  return { status, headers, body: body as T, text };
}

export async function api<T = Record<string, unknown>>(method: string, path: string, o: ApiOptions = {}): Promise<ApiResponse<T>> {
  const { headers, payload } = requestHeaders(o);
  const res = await fetch(`${o.base ?? baseUrl()}${path}`, { method, headers, body: payload });
  return checked<T>(method, new URL(res.url).pathname, res.status, res.headers, await res.text());
}

/**
 * As api(), but the path goes on the request line exactly as given: fetch (WHATWG URL) turns
 * `%2E` and `%2E%2E` segments into `.`/`..` and removes them, a raw client does not.
 */
export async function apiRawPath<T = Record<string, unknown>>(method: string, path: string, o: ApiOptions = {}): Promise<ApiResponse<T>> {
  const { headers, payload } = requestHeaders(o);
  if (payload !== undefined) headers["Content-Length"] = String(Buffer.byteLength(payload));
  const { status, responseHeaders, text } = await new Promise<{ status: number; responseHeaders: Headers; text: string }>(
    (resolve, reject) => {
      const req = request(`${baseUrl()}/`, { method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const h = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") h.set(name, value);
          resolve({ status: res.statusCode ?? 0, responseHeaders: h, text: Buffer.concat(chunks).toString("utf8") });
        });
      });
      req.on("error", reject);
      req.end(payload);
    },
  );
  // Checked against the operation a URL parser would route it to. A path whose dot segments
  // resolve to another is refused by the launcher's edge (JSON 404) before the rate limiter, so
  // it carries no rate-limit headers.
  const resolved = new URL(`${baseUrl()}${path}`).pathname;
  return checked<T>(method, resolved, status, responseHeaders, text, resolved === path.split("?")[0]);
}

/** Asserts the one error shape and the code. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: { code } } });
  const error = (res.body as { error: Record<string, unknown> }).error;
  expect(typeof error.message).toBe("string");
  expect(error.details).toBeTypeOf("object");
  expect(res.headers.get("x-request-id")).toBeTruthy();
}

/**
 * Sends a request again while it is answered 503 SERVICE_UNAVAILABLE (it waited longer than the
 * database pool allows, 5 s, and changed nothing), as the SDKs do: for tests that fire a hundred or
 * more requests at once, which a busy machine queues past that wait. At most `attempts` sends.
 */
export async function untilAnswered<T>(send: () => Promise<ApiResponse<T>>, attempts = 10): Promise<ApiResponse<T>> {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status !== 503 || attempt === attempts) return res;
    expectError(res as ApiResponse, 503, "SERVICE_UNAVAILABLE");
  }
}
