import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { ERRORS, type ErrorCode } from "@/server/errors";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { setProjectShares } from "@/server/services/projects";
import { api, baseUrl, checkAgainstDocument } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { type RawAnswer, type RawExchange, rawExchange } from "../support/raw-http";

/**
 * The abuse suite: property-based malformed input (fast-check) against every operation of the
 * served OpenAPI document, so a new endpoint is covered without touching this file. Four
 * families per operation — bodies, path and query, headers, HTTP framing — sent over raw
 * sockets (fetch refuses most of them) with a player's credentials (so requests reach
 * validation) and without. Properties of every answer: never 5xx; under /api the JSON error
 * shape with X-Request-Id and a code that belongs to its status; a refused request changes
 * nothing in the project's database. Seeded: FC_SEED reruns another seed, FC_RUNS sets the runs
 * per operation and family.
 */
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_261_123;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 40;
console.log(`[abuse] fast-check seed ${SEED} (rerun another with FC_SEED=<n>), ${RUNS} runs per operation and family (FC_RUNS)`);

// ---------------------------------------------------------------------------------------------
// The operations, read from the served document.

type JsonSchema = { [key: string]: unknown };
type Param = { name: string; in: string; schema?: JsonSchema };
type Operation = {
  method: string;
  path: string;
  label: string;
  operationId: string;
  pathParams: Param[];
  queryParams: Param[];
  bodySchema: JsonSchema | null;
  /** A bearer token (or a server key's X-Player-Id) is one of its security alternatives. */
  playerAuth: boolean;
};
type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> };
};

const DOC = (await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as OpenApiDocument;
const HTTP_METHODS = new Set(["get", "put", "post", "patch", "delete"]);

const OPERATIONS: Operation[] = Object.entries(DOC.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([method, raw]) => {
      const op = raw as {
        operationId: string;
        parameters?: Param[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
        security?: Array<Record<string, unknown>>;
      };
      const parameters = op.parameters ?? [];
      return {
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        operationId: op.operationId,
        pathParams: parameters.filter((p) => p.in === "path"),
        queryParams: parameters.filter((p) => p.in === "query"),
        bodySchema: op.requestBody?.content?.["application/json"]?.schema ?? null,
        playerAuth: (op.security ?? []).some((alternative) => Object.hasOwn(alternative, "bearer")),
      };
    }),
);

function resolveSchema(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace("#/components/schemas/", "");
  return DOC.components.schemas[name] ?? {};
}

/** A plausible value for a schema (examples, defaults, minimal lengths): the start of every mutation. */
function exampleFor(raw: JsonSchema, depth = 0): unknown {
  const schema = resolveSchema(raw);
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives?.[0]) return exampleFor(alternatives[0], depth + 1);
  switch (schema.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const name of (schema.required ?? []) as string[]) {
        const property = properties[name];
        if (property && depth < 5) out[name] = exampleFor(property, depth + 1);
      }
      return out;
    }
    case "array":
      return [];
    case "string":
      return "a".repeat(typeof schema.minLength === "number" ? schema.minLength : 1);
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    default:
      return { any: "json" };
  }
}

const BOARD = `abuse-${randomBytes(3).toString("hex")}`;
const DATA_KEY = "abuse-k";

/** Valid bodies where a schema's example would not reach the handler (fixture ids, credentials). */
const VALID_BODIES: Record<string, unknown> = {
  signInAnonymously: {},
  registerWithEmail: { email: "abuse@example.com", password: "plum-kettle-orbit-42" },
  loginWithEmail: { email: "abuse@example.com", password: "not-the-password" },
  signInWithIdentityProvider: { provider: "nope", token: "a.b.c" },
  refreshSession: { refreshToken: "not-a-refresh-token" },
  updateProfile: { displayName: "Abuser" },
  deletePlayerAccount: {},
  putPlayerData: { value: { level: 3 } },
  patchPlayerData: { set: { [DATA_KEY]: { value: 2 } }, delete: ["gone"] },
  putSave: { data: { level: 1 }, meta: { label: "slot" } },
  submitScore: { score: 10, metadata: { run: 1 } },
  addCurrency: { amount: 1 },
  subtractCurrency: { amount: 1 },
  purchase: { purchaseId: "abuse-potion", quantity: 1 },
};

const validBody = (op: Operation): unknown =>
  Object.hasOwn(VALID_BODIES, op.operationId) ? VALID_BODIES[op.operationId] : op.bodySchema ? exampleFor(op.bodySchema) : undefined;

function validParam(op: Operation, p: Param): string {
  if (p.name === "key") return DATA_KEY;
  if (op.path.startsWith("/players/")) return "me";
  if (op.path.startsWith("/leaderboards/")) return BOARD;
  if (op.path.startsWith("/economy/currencies/")) return "coins";
  return String(p.schema?.example ?? "x");
}

// ---------------------------------------------------------------------------------------------
// Fixtures: one project on an Enterprise budget with shares as large as the budget, so that
// 429s do not hide answers (429s that still happen must keep the properties too).

let project: TestProject;
let foreign: TestProject;
let me: TestPlayer;
let other: TestPlayer;
let stranger: TestPlayer;
/** Players an endpoint that ends sessions (logout, account deletion) acts on, replaced after each success. */
let sessionEnders: { me: TestPlayer; other: TestPlayer };
const SESSION_ENDING = new Set(["POST /auth/logout", "DELETE /players/{id}"]);
const port = () => Number(new URL(baseUrl()).port);

beforeAll(async () => {
  const budget = 1_000_000;
  project = await makeProject({ customRateLimit: budget });
  await setProjectShares({ projectId: project.projectId, playerRateLimit: budget, ipRateLimit: budget });
  foreign = await makeProject();
  const projectId = project.projectId;
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", initialBalance: 100, maxBalance: 1_000_000 } });
  await createCurrency({ projectId, input: { id: "gems", name: "Gems", initialBalance: 5, clientWritable: false } });
  await createItem({ projectId, input: { id: "potion", name: "Potion", maxStack: 50 } });
  await createPurchase({
    projectId,
    input: {
      id: "abuse-potion",
      name: "Potion",
      costs: [{ currencyId: "coins", amount: 1 }],
      rewards: [{ itemId: "potion", quantity: 1 }],
    },
  });
  await createLeaderboard({
    projectId,
    input: { id: BOARD, name: "Abuse", sortOrder: "desc", operator: "best", minScore: -1_000_000, maxScore: 1_000_000 },
  });
  me = await anonymousPlayer(project.clientKey);
  other = await anonymousPlayer(project.clientKey);
  stranger = await anonymousPlayer(foreign.clientKey);
  sessionEnders = { me: await anonymousPlayer(project.clientKey), other: await anonymousPlayer(project.clientKey) };
  // State for refused writes to leave alone: data, a save, balances (created on first read), a score.
  for (const p of [me, other]) {
    const as = { key: project.clientKey, token: p.accessToken };
    expect(
      (await api("PUT", `/api/v1/players/me/data/${DATA_KEY}`, { ...as, body: { value: { v: 1 }, visibility: "public" } })).status,
    ).toBe(201);
    expect((await api("PUT", "/api/v1/saves/slot-1", { ...as, body: { data: { hp: 3 } } })).status).toBe(201);
    expect((await api("GET", "/api/v1/economy/currencies", as)).status).toBe(200);
    expect((await api("POST", `/api/v1/leaderboards/${BOARD}/scores`, { ...as, body: { score: 5 } })).status).toBe(200);
  }
});

// ---------------------------------------------------------------------------------------------
// Building raw requests.

type Credentials = "player" | "none" | "key-only" | "server-as-player" | "server-as-other" | "other-player" | "foreign-token";
type HeaderLine = [string, string | Buffer];
type RawRequest = {
  method: string;
  target: string;
  version?: string;
  headers: HeaderLine[];
  body?: Buffer;
  /** "exact" (default), "omit", or a number (a lie when it differs from the body). */
  contentLength?: "exact" | "omit" | number | string;
  /** Bytes after the body: what a shorter Content-Length leaves for the parser. */
  trailer?: Buffer;
  halfClose?: boolean;
  /** Headers that parse and a body that never completes: the app may run the request while the launcher answers 400. */
  mayRunUnseen?: boolean;
};

let ipCounter = 0;
/** A fresh client address per request (the test server trusts X-Forwarded-For): per-IP budgets stay out of the way. */
const nextIp = () => {
  ipCounter += 1;
  return `198.${18 + ((ipCounter >> 16) & 1)}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

function actorsFor(op: Operation): { me: TestPlayer; other: TestPlayer } {
  return SESSION_ENDING.has(op.label) ? sessionEnders : { me, other };
}

function credentialHeaders(op: Operation, credentials: Credentials): HeaderLine[] {
  const actors = actorsFor(op);
  switch (credentials) {
    case "player":
      return [
        ["X-API-Key", project.clientKey],
        ["Authorization", `Bearer ${actors.me.accessToken}`],
      ];
    case "none":
      return [];
    case "key-only":
      return [["X-API-Key", project.clientKey]];
    case "server-as-player":
      return [
        ["X-API-Key", project.serverKey],
        ["X-Player-Id", actors.me.playerId],
      ];
    case "server-as-other":
      return [
        ["X-API-Key", project.serverKey],
        ["X-Player-Id", actors.other.playerId],
      ];
    case "other-player":
      return [
        ["X-API-Key", project.clientKey],
        ["Authorization", `Bearer ${actors.other.accessToken}`],
      ];
    case "foreign-token":
      return [
        ["X-API-Key", project.clientKey],
        ["Authorization", `Bearer ${stranger.accessToken}`],
      ];
  }
}

/** Placeholders in generated values, replaced when the request is built (fixtures exist only then). */
function substitute(op: Operation, text: string): string {
  const actors = actorsFor(op);
  return text
    .replaceAll("@me-id-upper", actors.me.playerId.toUpperCase())
    .replaceAll("@me-id", actors.me.playerId)
    .replaceAll("@other-id", actors.other.playerId)
    .replaceAll("@foreign-id", stranger.playerId)
    .replaceAll("@client-key", project.clientKey)
    .replaceAll("@server-key", project.serverKey)
    .replaceAll("@foreign-key", foreign.clientKey)
    .replaceAll("@token", actors.me.accessToken)
    .replaceAll("@other-token", actors.other.accessToken)
    .replaceAll("@refresh", actors.me.refreshToken);
}

function serialise(r: RawRequest): Buffer {
  const lines: Buffer[] = [Buffer.from(`${r.method} ${r.target} ${r.version ?? "HTTP/1.1"}\r\n`, "latin1")];
  const headers: HeaderLine[] = [["Host", "127.0.0.1"], ...r.headers];
  const body = r.body ?? Buffer.alloc(0);
  const length = r.contentLength ?? "exact";
  if (length === "exact" && (r.body !== undefined || ["POST", "PUT", "PATCH"].includes(r.method))) {
    headers.push(["Content-Length", String(body.length)]);
  } else if (typeof length === "number" || (typeof length === "string" && length !== "exact" && length !== "omit")) {
    headers.push(["Content-Length", String(length)]);
  }
  if (!headers.some(([name]) => name.toLowerCase() === "connection")) headers.push(["Connection", "close"]);
  for (const [name, value] of headers) {
    lines.push(Buffer.from(`${name}: `, "latin1"), typeof value === "string" ? Buffer.from(value, "latin1") : value, Buffer.from("\r\n"));
  }
  lines.push(Buffer.from("\r\n"), body, r.trailer ?? Buffer.alloc(0));
  return Buffer.concat(lines);
}

function targetFor(op: Operation, segments: Record<string, string>, query = ""): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => segments[name] ?? "x");
  return `/api/v1${path}${query}`;
}

function canonicalTarget(op: Operation): string {
  const segments: Record<string, string> = {};
  for (const p of op.pathParams) segments[p.name] = encodeURIComponent(validParam(op, p));
  return targetFor(op, segments);
}

// ---------------------------------------------------------------------------------------------
// Generators.

const MIB = 1024 * 1024;
/** Invalid UTF-8: a bad continuation, stray bytes, an overlong slash, a surrogate, beyond U+10FFFF, a cut sequence. */
const invalidUtf8 = fc.constantFrom(
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xff]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0x80]),
  Buffer.from([0xe2, 0x82]),
);

/** JSON text of values with the wrong type or at the edges: numbers, NaN-like text, prototype keys, deep nesting, huge strings. */
const edgeNumber = fc.constantFrom(
  "1e308",
  "-1e308",
  "1.7976931348623157e308",
  "1e309",
  "-1e400",
  "-0",
  "-0.0",
  "0e0",
  "9007199254740993",
  "-9007199254740993",
  "9007199254740992",
  "123456789012345678901234567890",
  "5e-324",
  "1e-400",
  "0.1",
  "-1",
  "0",
  "2147483648",
  "-2147483649",
);
const nanLikeText = fc.constantFrom('"NaN"', '"Infinity"', '"-Infinity"', '"1e308"', '"0x10"', '" 1"', '"1_000"', '""', '"null"', '"-0"');
const oddString = fc.constantFrom(
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff x"',
  '"\\ud83d\\ude00"',
  '"\\u202e"',
  '"\\ufeff"',
  '"e\\u0301"',
  '"\\r\\n"',
  '"<script>alert(1)</script>"',
  '"\'; DROP TABLE players; --"',
  '"{{7*7}}"',
  '"%00"',
  '"__proto__"',
  '"constructor"',
  '"   "',
);
const hugeString = fc.integer({ min: 1_000, max: 300_000 }).map((n) => JSON.stringify("x".repeat(n)));
const deepNesting = fc
  .tuple(fc.integer({ min: 60, max: 5_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`));
const prototypeObject = fc.constantFrom(
  '{"__proto__":{"admin":true}}',
  '{"__proto__":null}',
  '{"__proto__":[]}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"prototype":{"polluted":1}}',
  '{"toString":1,"valueOf":"x","hasOwnProperty":null}',
  '{"a":{"__proto__":{"b":1}}}',
);
const wrongScalar = fc.constantFrom("null", "true", "false", "[]", "{}", '"x"', "[null]", '{"":""}', "[[]]", "[{}]");
const anyJsonText = fc.json({ maxDepth: 3 });

const abusiveValue = fc.oneof(
  { arbitrary: edgeNumber, weight: 4 },
  { arbitrary: nanLikeText, weight: 2 },
  { arbitrary: oddString, weight: 3 },
  { arbitrary: wrongScalar, weight: 4 },
  { arbitrary: prototypeObject, weight: 2 },
  { arbitrary: anyJsonText, weight: 3 },
  { arbitrary: hugeString, weight: 1 },
  { arbitrary: deepNesting, weight: 1 },
);

const PLACEHOLDER = "\u0001ABUSE\u0001";

/** Every path into a JSON value (objects and arrays), plus a new key under each object. */
function pathsOf(value: unknown, at: string[] = [], out: string[][] = []): string[][] {
  out.push(at);
  if (value && typeof value === "object" && at.length < 6) {
    for (const [key, child] of Object.entries(value)) pathsOf(child, [...at, key], out);
  }
  return out;
}

/** The body text with the value at `path` (or a new key `extra` there) replaced by raw JSON text. */
function replaceAt(base: unknown, path: string[], valueText: string, extraKey: string | null): string {
  const copy = structuredClone(base) as unknown;
  const placeholder = JSON.stringify(PLACEHOLDER);
  if (path.length === 0 && extraKey === null) return valueText;
  let parent: unknown = copy;
  const parents = extraKey === null ? path.slice(0, -1) : path;
  for (const key of parents) parent = (parent as Record<string, unknown>)[key];
  if (!parent || typeof parent !== "object") return valueText;
  const key = extraKey ?? path[path.length - 1] ?? "";
  Object.defineProperty(parent, key, { value: PLACEHOLDER, enumerable: true, configurable: true, writable: true });
  return JSON.stringify(copy).replace(placeholder, () => valueText);
}

type BodyCase = { kind: string; text?: string; bytes?: Buffer };
const bodyText = (c: BodyCase): Buffer => c.bytes ?? Buffer.from(c.text ?? "", "utf8");

function bodyCases(op: Operation): fc.Arbitrary<BodyCase> {
  const base = validBody(op) ?? {};
  const baseText = JSON.stringify(base);
  const paths = pathsOf(base);
  const mutated = fc
    .tuple(
      fc.constantFrom(...paths),
      abusiveValue,
      fc.option(fc.constantFrom("__proto__", "constructor", "prototype", "extra", ""), { freq: 3 }),
    )
    .map(([path, value, extra]): BodyCase => ({ kind: "wrong-type", text: replaceAt(base, path, value, extra) }));
  const truncated = fc
    .integer({ min: 0, max: Math.max(0, baseText.length - 1) })
    .map((n): BodyCase => ({ kind: "truncated", text: baseText.slice(0, n) }));
  const invalidBytes = fc
    .tuple(
      fc.oneof(
        fc.constant(baseText),
        mutated.map((m) => m.text ?? ""),
      ),
      invalidUtf8,
      fc.double({ min: 0, max: 1, noNaN: true }),
    )
    .map(([text, bad, where]): BodyCase => {
      const bytes = Buffer.from(text, "utf8");
      const at = Math.floor(where * bytes.length);
      return { kind: "invalid-utf8", bytes: Buffer.concat([bytes.subarray(0, at), bad, bytes.subarray(at)]) };
    });
  const notJson = fc
    .constantFrom(
      "NaN",
      "Infinity",
      "-Infinity",
      "undefined",
      "{value: 1}",
      "{'value': 1}",
      '{"value": 1,}',
      '{"value": 01}',
      '{"value": 0x10}',
      '{"value": .5}',
      '{"value": +1}',
      '{"value": 1} // comment',
      '{"value": 1}{"value": 2}',
      '{"a":1,"a":2}',
      "\ufeff{}",
      "[",
      "{",
      '"',
      "\u0000",
      "   ",
      "null",
      "0",
      '""',
      "[]",
    )
    .map((text): BodyCase => ({ kind: "not-json", text }));
  const oversize = fc
    .constantFrom(2 * MIB + 1, 2 * MIB + 65_536, 3 * MIB)
    .map((size): BodyCase => ({ kind: "oversize", text: `{"value":"${"x".repeat(size)}"}` }));
  const randomBytes_ = fc
    .uint8Array({ minLength: 1, maxLength: 256 })
    .map((b): BodyCase => ({ kind: "random-bytes", bytes: Buffer.from(b) }));
  const wholeJson = anyJsonText.map((text): BodyCase => ({ kind: "any-json", text }));
  const deepBody = deepNesting.map((text): BodyCase => ({ kind: "deep", text }));
  return fc.oneof(
    { arbitrary: mutated, weight: 8 },
    { arbitrary: truncated, weight: 2 },
    { arbitrary: invalidBytes, weight: 2 },
    { arbitrary: notJson, weight: 2 },
    { arbitrary: wholeJson, weight: 2 },
    { arbitrary: deepBody, weight: 1 },
    { arbitrary: randomBytes_, weight: 1 },
    { arbitrary: oversize, weight: 1 },
  );
}

function credentialsArb(op: Operation): fc.Arbitrary<Credentials> {
  const valid: Credentials = op.playerAuth ? "player" : "key-only";
  return fc.oneof(
    { arbitrary: fc.constant(valid), weight: 10 },
    { arbitrary: fc.constant<Credentials>("server-as-player"), weight: 2 },
    { arbitrary: fc.constant<Credentials>("none"), weight: 2 },
    { arbitrary: fc.constantFrom<Credentials>("key-only", "player", "server-as-other", "other-player", "foreign-token"), weight: 2 },
  );
}

const oddSegment = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "%00",
      "a%00b",
      "%2e%2e",
      "%2E%2E",
      "%2e",
      "..",
      ".",
      "%2F",
      "a%2Fb",
      "%2e%2e%2f%2e%2e",
      "..%2F..%2Fsaves",
      "%5C",
      "%25",
      "%2500",
      "%20",
      "+",
      "%09",
      "%0D%0A",
      "%0D%0AX-Injected:%201",
      "me",
      "ME",
      "Me",
      "%6De",
      "me%00",
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "hasOwnProperty",
      "__proto__%2Fadmin",
      "null",
      "undefined",
      "NaN",
      "-1",
      "0",
      "1e308",
      "%EF%BB%BF",
      "%F0%9F%92%A9",
      "%E2%80%AE",
      "%C3%A9",
      "%ED%A0%80",
      "%FF",
      "%C0%AE",
      "%",
      "%%",
      "%zz",
      "~",
      ";",
      "a;b=c",
      "*",
      "%23",
      "%3F",
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      "01900000-0000-7000-8000-000000000000",
      "@me-id",
      "@me-id-upper",
      "@other-id",
      "@foreign-id",
      "abuse-potion",
      "gems",
      "slot-1",
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 129, max: 6_000 }).map((n) => "a".repeat(n)) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).map(encodeURIComponent) },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: "binary", minLength: 1, maxLength: 12 })
      .map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "x"))),
  },
);

const oddQueryValue = fc.constantFrom(
  "-1",
  "0",
  "1e308",
  "NaN",
  "Infinity",
  "-0",
  "9007199254740993",
  "0x10",
  "1.5",
  "",
  "%201",
  "%00",
  "%FF",
  "%ED%A0%80",
  "a".repeat(5_000),
  "[]",
  "{}",
  "__proto__",
  "%E2%80%AE",
  "1&limit=2",
  "100000000000000000000",
);
const oddQueryName = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "__proto__[admin]",
  "constructor[prototype][admin]",
  "x",
  "",
  "%00",
);

function queryArb(op: Operation): fc.Arbitrary<string> {
  const declared = op.queryParams.map((p) => p.name);
  const names = declared.length > 0 ? fc.oneof(fc.constantFrom(...declared), oddQueryName) : oddQueryName;
  return fc
    .array(fc.tuple(names, oddQueryValue), { minLength: 1, maxLength: 3 })
    .map((pairs) => `?${pairs.map(([name, value]) => `${name}=${value}`).join("&")}`);
}

type PathCase = { segments: Record<string, string>; suffix: string; query: string };

function pathCases(op: Operation): fc.Arbitrary<PathCase> {
  const perParam = op.pathParams.map((p) =>
    fc.oneof({ arbitrary: fc.constant(encodeURIComponent(validParam(op, p))), weight: 1 }, { arbitrary: oddSegment, weight: 3 }),
  );
  return fc
    .tuple(
      fc.tuple(...perParam),
      fc.oneof(
        { arbitrary: fc.constant(""), weight: 4 },
        { arbitrary: oddSegment.map((s) => `/${s}`), weight: op.pathParams.length === 0 ? 4 : 1 },
        { arbitrary: fc.constantFrom("/", "//", "/.", "/..", "/%2e%2e", "%20", "%00", ";x", "\\", "/\\"), weight: 1 },
      ),
      fc.oneof({ arbitrary: fc.constant(""), weight: 2 }, { arbitrary: queryArb(op), weight: 1 }),
    )
    .map(([values, suffix, query]) => {
      const segments: Record<string, string> = {};
      op.pathParams.forEach((p, i) => {
        segments[p.name] = values[i] ?? "x";
      });
      return { segments, suffix, query };
    })
    .filter((c) => c.suffix !== "" || c.query !== "" || op.pathParams.some((p, i) => c.segments[p.name] !== perParamValid(op, i)));
}

const perParamValid = (op: Operation, i: number): string => {
  const p = op.pathParams[i];
  return p ? encodeURIComponent(validParam(op, p)) : "";
};

const CONTENT_TYPES = [
  null,
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "application/json;charset=utf-16",
  "APPLICATION/JSON",
  "application/jsonp",
  "application/json, text/html",
  "application/problem+json",
  "application/vnd.api+json",
  "",
  "*/*",
  "json",
  'application/json; charset="utf-8"',
  "application/json;;;",
  "text/json",
  "application/json\u00e9",
];

/** Header values that break the line: CR, LF, obs-fold, NUL, DEL and control bytes, invalid UTF-8. */
const injection = fc.oneof(
  fc
    .constantFrom("\r", "\n", "\r\nX-Injected: 1", "\r\n\r\n", "\r\n folded", "\u0000", "\u007f", "\u0001", "\t", "\u00ff", "\u0085")
    .map((s) => Buffer.from(s, "latin1")),
  invalidUtf8,
);
const INJECTABLE_HEADERS = [
  "X-API-Key",
  "Authorization",
  "X-Player-Id",
  "If-Match",
  "If-None-Match",
  "Idempotency-Key",
  "X-Request-Id",
  "Content-Type",
  "X-Forwarded-For",
  "User-Agent",
  "Accept",
];

/** Odd but well-formed values for the headers the API reads. */
const oddHeader: fc.Arbitrary<HeaderLine> = fc.oneof(
  fc
    .constantFrom("", "*", 'W/"1"', '"abc"', '"-1"', '"0"', '"99999999999999999999999"', '"1e3"', "1", '"1", "2"', '"1.5"', '"  1"')
    .map((v): HeaderLine => ["If-Match", v]),
  fc.constantFrom("*", '"1"', "x", "", "*, *").map((v): HeaderLine => ["If-None-Match", v]),
  fc
    .constantFrom("", " ", "a".repeat(256), "a".repeat(4_000), "\u00e9t\u00e9", "__proto__", "constructor", "%00", "key with spaces")
    .map((v): HeaderLine => ["Idempotency-Key", v]),
  fc
    .constantFrom("me", "", "not-a-uuid", "@other-id", "@foreign-id", "@me-id-upper", "00000000-0000-0000-0000-000000000000", "__proto__")
    .map((v): HeaderLine => ["X-Player-Id", v]),
  fc
    .constantFrom(
      "Bearer",
      "Bearer ",
      "bearer @token",
      "BEARER @token",
      "Basic dXNlcjpwYXNz",
      "Bearer a.b.c",
      "Bearer @token @token",
      "Bearer\t@token",
      "Bearer @other-token",
      "Bearer @refresh",
      "Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4In0.",
      `Bearer ${"x".repeat(6_000)}`,
      "Bearer __proto__",
    )
    .map((v): HeaderLine => ["Authorization", v]),
  fc
    .constantFrom(
      "",
      " ",
      "@server-key",
      "@foreign-key",
      "gb_client_",
      "gb_client_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
      "gb_server_\u00e9",
      "x".repeat(6_000),
      "__proto__",
    )
    .map((v): HeaderLine => ["X-API-Key", v]),
  fc.constantFrom("", "x".repeat(200), "a b", "<script>", "\u00e9", "__proto__").map((v): HeaderLine => ["X-Request-Id", v]),
  fc
    .constantFrom("", "garbage", "::1", "1.2.3.4, evil", "999.999.999.999", "[::1]:80", "x".repeat(3_000), "\u00e9", ", , ,")
    .map((v): HeaderLine => ["X-Forwarded-For", v]),
  fc.constantFrom("text/html", "application/xml", "*/*;q=0").map((v): HeaderLine => ["Accept", v]),
  fc.constantFrom("100-continue", "something-else").map((v): HeaderLine => ["Expect", v]),
  fc.constantFrom("Upgrade, close", "close, keep-alive").map((v): HeaderLine => ["Connection", v]),
  fc.constantFrom("websocket", "h2c").map((v): HeaderLine => ["Upgrade", v]),
);

type HeaderCase = {
  contentType: string | null | undefined;
  extra: HeaderLine[];
  duplicate: string | null;
  inject: { name: string; bytes: Buffer } | null;
};

const headerCases: fc.Arbitrary<HeaderCase> = fc.record({
  contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { freq: 2, nil: undefined }),
  extra: fc.array(oddHeader, { minLength: 0, maxLength: 3 }),
  duplicate: fc.option(fc.constantFrom("X-API-Key", "Authorization", "Content-Type", "X-Player-Id", "Idempotency-Key", "If-Match"), {
    freq: 4,
  }),
  inject: fc.option(fc.record({ name: fc.constantFrom(...INJECTABLE_HEADERS), bytes: injection }), { freq: 2 }),
});

type FramingCase = {
  method: string;
  version: string;
  absolute: boolean;
  framing: "exact" | "shorter" | "longer" | "none" | "chunked" | "bad-chunked" | "cl-and-te" | "odd-cl" | "body-on-read";
  oddLength: string;
  chunkSize: string;
};

const framingCases: fc.Arbitrary<FramingCase> = fc.record({
  method: fc.oneof(
    { arbitrary: fc.constant("@op"), weight: 6 },
    {
      arbitrary: fc.constantFrom(
        "TRACE",
        "PROPFIND",
        "FOO",
        "get",
        "Get",
        "HEAD",
        "OPTIONS",
        "GET",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "M-SEARCH",
        "PURGE",
        "QUERY",
        "CONNECT",
        "X".repeat(100),
      ),
      weight: 3,
    },
  ),
  version: fc.oneof(
    { arbitrary: fc.constant("HTTP/1.1"), weight: 8 },
    { arbitrary: fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "http/1.1"), weight: 1 },
  ),
  absolute: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
  framing: fc.constantFrom("exact", "shorter", "longer", "none", "chunked", "bad-chunked", "cl-and-te", "odd-cl", "body-on-read"),
  oddLength: fc.constantFrom("-1", "+5", " 5", "5, 5", "0x5", "1e3", "99999999999999999999", "", "5 5"),
  chunkSize: fc.constantFrom("zz", "-1", "ffffffffffffffff", "1;ext=\u00e9", "0x5", " 5", "5 "),
});

// ---------------------------------------------------------------------------------------------
// The properties.

type Family = "body" | "path" | "headers" | "framing";
const FAMILIES: Family[] = ["body", "path", "headers", "framing"];
const counts = new Map<string, Record<Family, number> & { statuses: Map<number, number> }>();

function count(op: Operation, family: Family, answers: RawAnswer[]): void {
  let row = counts.get(op.label);
  if (!row) {
    row = { body: 0, path: 0, headers: 0, framing: 0, statuses: new Map() };
    counts.set(op.label, row);
  }
  row[family] += 1;
  for (const a of answers) row.statuses.set(a.status, (row.statuses.get(a.status) ?? 0) + 1);
}

type ErrorShape = { error: { code: string; message: string; details: unknown } };

/** The properties every answer has, whatever was sent. */
async function checkAnswers(label: string, sent: RawRequest, exchange: RawExchange, documentPath: string | null): Promise<void> {
  const what = `${label} ← ${describeRequest(sent)}`;
  expect(exchange.timedOut, `${what}: no answer within 15 s`).toBe(false);
  expect(exchange.answers.length, `${what}: the connection closed without an answer (${exchange.error ?? "no error"})`).toBeGreaterThan(0);
  const head = sent.method === "HEAD";
  // The launcher's answer to a HEAD request it cannot parse carries a body (it cannot know the
  // method): the client discards it with the closing connection.
  if (!head) expect(exchange.leftover.length, `${what}: a truncated answer: ${exchange.leftover.toString("latin1").slice(0, 300)}`).toBe(0);
  for (const [i, answer] of exchange.answers.entries()) {
    const text = answer.body.toString("utf8");
    const where = `${what} → ${answer.status} ${text.slice(0, 300)}`;
    expect(answer.status, `${where}: a server error`).toBeLessThan(500);
    expect(answer.headers["x-request-id"], `${where}: X-Request-Id`).toBeTruthy();
    if (head && i === 0) continue;
    // The first answer is to the request as sent: its status and body as the document says (successes too).
    const documented = i === 0 && documentPath !== null;
    if (answer.status === 204 || (answer.status >= 300 && answer.status < 400 && text === "")) {
      if (documented) await checkAgainstDocument(sent.method, documentPath, answer.status, null);
      continue;
    }
    expect(answer.headers["content-type"], `${where}: Content-Type`).toMatch(/^application\/json/);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${where}: the body is not JSON`);
    }
    if (documented) await checkAgainstDocument(sent.method, documentPath, answer.status, body);
    if (answer.status < 400) continue;
    const error = (body as Partial<ErrorShape> | null)?.error;
    expect(Object.keys(body as object), `${where}: only "error" at the top`).toEqual(["error"]);
    expect(error?.code, `${where}: error.code`).toBeTypeOf("string");
    expect(error?.message, `${where}: error.message`).toBeTypeOf("string");
    expect(
      error?.details !== null && typeof error?.details === "object" && !Array.isArray(error?.details),
      `${where}: details is an object`,
    ).toBe(true);
    const code = error?.code ?? "";
    expect(Object.hasOwn(ERRORS, code), `${where}: ${code} is not in the error table`).toBe(true);
    expect(ERRORS[code as ErrorCode].status, `${where}: ${code} belongs to another status`).toBe(answer.status);
  }
}

function describeRequest(r: RawRequest): string {
  const body = r.body ? ` body(${r.body.length} B): ${JSON.stringify(r.body.subarray(0, 160).toString("latin1"))}` : "";
  const headers = r.headers
    .map(([n, v]) => `${n}: ${JSON.stringify((typeof v === "string" ? v : v.toString("latin1")).slice(0, 80))}`)
    .join("; ");
  return `${r.method} ${r.target.slice(0, 200)} ${r.version ?? ""} [${headers}] CL=${String(r.contentLength ?? "exact")}${body}${r.trailer ? ` trailer ${JSON.stringify(r.trailer.toString("latin1").slice(0, 80))}` : ""}`;
}

/** What a refused request must leave alone: everything players of the project own, and the players themselves. */
async function fingerprint(): Promise<string> {
  const { rows } = await pool().query<{ state: unknown }>(
    `SELECT json_build_object(
       'players', (SELECT json_agg(json_build_array(id, display_name, email, banned_at) ORDER BY id) FROM players WHERE project_id = $1),
       'identities', (SELECT count(*) FROM identities WHERE project_id = $1),
       'sessions', (SELECT count(*) FROM sessions WHERE project_id = $1 AND revoked_at IS NULL),
       'data', (SELECT json_agg(json_build_array(player_id, key, version, visibility, md5(value::text)) ORDER BY player_id, key)
                FROM player_data WHERE project_id = $1),
       'saves', (SELECT json_agg(json_build_array(player_id, key, version, sha256, md5(meta::text)) ORDER BY player_id, key)
                 FROM player_saves WHERE project_id = $1),
       'entries', (SELECT json_agg(json_build_array(player_id, leaderboard_id, period, score, md5(coalesce(metadata::text, '')))
                   ORDER BY player_id, leaderboard_id, period) FROM leaderboard_entries WHERE project_id = $1),
       'wallets', (SELECT json_agg(json_build_array(player_id, currency_id, balance) ORDER BY player_id, currency_id)
                   FROM wallets WHERE project_id = $1),
       'inventory', (SELECT json_agg(json_build_array(player_id, item_id, quantity) ORDER BY player_id, item_id)
                     FROM inventory WHERE project_id = $1),
       'ledger', (SELECT count(*) FROM economy_transactions WHERE project_id = $1),
       'idempotency', (SELECT count(*) FROM idempotency_keys WHERE project_id = $1)
     ) AS state`,
    [project.projectId],
  );
  return JSON.stringify(rows[0]?.state);
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
let baseline = "";
let writesAccepted = 0;

/** Sends one request, checks its answers, and checks the database when everything was refused. */
/** How many answers the app recorded for a route pattern and method (gb_http_requests_total, every status and code). */
async function answersRecorded(route: string, method: string): Promise<number> {
  const text = await (await fetch(`${baseUrl()}/api/metrics`)).text();
  const prefix = `gb_http_requests_total{route="${route}",method="${method}",`;
  let n = 0;
  for (const line of text.split("\n")) if (line.startsWith(prefix)) n += Number(line.slice(line.lastIndexOf(" ") + 1));
  return n;
}

async function exchangeAndCheck(op: Operation, family: Family, sent: RawRequest, documentPath: string | null): Promise<RawAnswer[]> {
  const route = op.path.startsWith("/api/v1") ? op.path : `/api/v1${op.path}`;
  const method = sent.method.toUpperCase();
  const recordedBefore = sent.mayRunUnseen ? await answersRecorded(route, method) : 0;
  const exchange = await rawExchange(port(), serialise(sent), { halfClose: sent.halfClose, headFirst: sent.method === "HEAD" });
  count(op, family, exchange.answers);
  await checkAnswers(op.label, sent, exchange, documentPath);
  const accepted = exchange.answers.some((a) => a.status < 400) && !READS.has(sent.method.toUpperCase());
  // A request whose body never completes (half-closed before its Content-Length, a broken
  // chunk) gets the launcher's 400 while a handler that reads no body may still run it: not a
  // refusal we can judge. Unless the app answered too, let it finish before the new baseline.
  const unseen = sent.mayRunUnseen === true && !exchange.answers.some((a) => a.headers["x-ratelimit-limit"] !== undefined);
  if (accepted || unseen) {
    if (accepted) writesAccepted += 1;
    else {
      // Wait until the app's handler has answered it (its route's counter moved), so the new
      // baseline includes what it wrote. A handler still waiting for the body that never came
      // writes nothing and never answers: given up on after 300 ms.
      const started = Date.now();
      while ((await answersRecorded(route, method)) <= recordedBefore && Date.now() - started < 300) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    if (accepted && SESSION_ENDING.has(op.label)) {
      sessionEnders = { me: await anonymousPlayer(project.clientKey), other: await anonymousPlayer(project.clientKey) };
    }
    baseline = await fingerprint();
    return exchange.answers;
  }
  const after = await fingerprint();
  expect(after, `${op.label} ← ${describeRequest(sent)}: a refused request changed the database`).toBe(baseline);
  return exchange.answers;
}

function commonHeaders(op: Operation, credentials: Credentials): HeaderLine[] {
  return [["X-Forwarded-For", nextIp()], ...credentialHeaders(op, credentials)];
}

function documentPathOf(target: string): string {
  return new URL(target, baseUrl()).pathname;
}

async function runBody(op: Operation, c: BodyCase, credentials: Credentials): Promise<void> {
  const sent: RawRequest = {
    method: op.method,
    target: canonicalTarget(op),
    headers: [...commonHeaders(op, credentials), ["Content-Type", "application/json"]],
    body: Buffer.from(substitute(op, bodyText(c).toString("latin1")), "latin1"),
  };
  await exchangeAndCheck(op, "body", sent, documentPathOf(sent.target));
}

async function runPath(op: Operation, c: PathCase, credentials: Credentials): Promise<void> {
  const segments: Record<string, string> = {};
  for (const [name, value] of Object.entries(c.segments)) segments[name] = substitute(op, value);
  const target = `${targetFor(op, segments)}${substitute(op, c.suffix)}${c.query}`;
  const body = op.bodySchema ? Buffer.from(JSON.stringify(validBody(op))) : undefined;
  const headers: HeaderLine[] = [
    ...commonHeaders(op, credentials),
    ...(body ? ([["Content-Type", "application/json"]] as HeaderLine[]) : []),
  ];
  const sent: RawRequest = { method: op.method, target, headers, body };
  // Dot segments are judged as a URL parser resolves them (what Next routes).
  await exchangeAndCheck(op, "path", sent, documentPathOf(target.split("?")[0] ?? target));
}

async function runHeaders(op: Operation, c: HeaderCase, credentials: Credentials): Promise<void> {
  const body = op.bodySchema ? Buffer.from(JSON.stringify(validBody(op))) : undefined;
  const headers: HeaderLine[] = commonHeaders(op, credentials);
  const contentType = c.contentType === undefined ? (body ? "application/json" : undefined) : c.contentType;
  if (contentType !== undefined && contentType !== null) headers.push(["Content-Type", contentType]);
  for (const [name, value] of c.extra) headers.push([name, substitute(op, typeof value === "string" ? value : value.toString("latin1"))]);
  if (c.duplicate) {
    const existing = headers.find(([name]) => name.toLowerCase() === c.duplicate?.toLowerCase());
    headers.push([c.duplicate, existing ? (c.duplicate === "Content-Type" ? "text/plain" : "second-value") : "only-value"]);
  }
  if (c.inject) {
    const name = c.inject.name;
    const index = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
    const current = index === -1 ? "x" : (headers[index]?.[1] ?? "x");
    const value = Buffer.concat([
      Buffer.from(typeof current === "string" ? current : current.toString("latin1"), "latin1"),
      c.inject.bytes,
      Buffer.from("y"),
    ]);
    if (index === -1) headers.push([name, value]);
    else headers[index] = [name, value];
  }
  const sent: RawRequest = { method: op.method, target: canonicalTarget(op), headers, body };
  await exchangeAndCheck(op, "headers", sent, documentPathOf(sent.target));
}

async function runFraming(op: Operation, c: FramingCase, credentials: Credentials): Promise<void> {
  const method = c.method === "@op" ? op.method : c.method;
  const path = canonicalTarget(op);
  const target = method === "CONNECT" ? "127.0.0.1:443" : c.absolute ? `http://evil.example${path}` : path;
  const body = Buffer.from(JSON.stringify(validBody(op) ?? {}));
  const headers: HeaderLine[] = [...commonHeaders(op, credentials), ["Content-Type", "application/json"]];
  const sent: RawRequest = { method, target, version: c.version, headers, body };
  // Garbage a parser reads as the next request ends in a blank line, so it is judged at once.
  const end = Buffer.from("\r\n\r\n");
  switch (c.framing) {
    case "exact":
      break;
    case "shorter": {
      const cut = Math.floor(body.length / 2);
      sent.body = body.subarray(0, cut);
      sent.trailer = Buffer.concat([body.subarray(cut), end]);
      sent.headers.push(["Connection", "keep-alive"]);
      break;
    }
    case "longer":
      sent.contentLength = body.length + 1 + (body.length % 7) * 100;
      sent.halfClose = true;
      sent.mayRunUnseen = true;
      break;
    case "none":
      sent.contentLength = "omit";
      sent.body = undefined;
      sent.trailer = Buffer.concat([body, end]);
      sent.headers.push(["Connection", "keep-alive"]);
      break;
    case "chunked":
      sent.contentLength = "omit";
      sent.headers.push(["Transfer-Encoding", "chunked"]);
      sent.body = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]);
      break;
    case "bad-chunked":
      sent.contentLength = "omit";
      sent.headers.push(["Transfer-Encoding", "chunked"]);
      sent.body = Buffer.concat([Buffer.from(`${c.chunkSize}\r\n`, "latin1"), body, Buffer.from("\r\n0\r\n\r\n")]);
      sent.halfClose = true;
      sent.mayRunUnseen = true;
      break;
    case "cl-and-te":
      sent.headers.push(["Transfer-Encoding", "chunked"]);
      break;
    case "odd-cl":
      sent.contentLength = c.oddLength;
      sent.halfClose = true;
      sent.mayRunUnseen = /^\s*\d+\s*$/.test(c.oddLength);
      break;
    case "body-on-read":
      sent.method = method === op.method && ["POST", "PUT", "PATCH"].includes(method) ? "GET" : method;
      break;
  }
  const routed = sent.method === op.method && !c.absolute && sent.version === "HTTP/1.1";
  await exchangeAndCheck(op, "framing", sent, routed ? documentPathOf(path) : null);
}

/** The player's data list and balances through the API (the spot-check beside the database fingerprint). */
async function spotCheck(): Promise<unknown> {
  const as = { key: project.serverKey, headers: { "X-Player-Id": me.playerId } };
  const data = await api<unknown[]>("GET", "/api/v1/players/me/data", as);
  const balances = await api<unknown[]>("GET", "/api/v1/economy/currencies", as);
  expect([data.status, balances.status]).toEqual([200, 200]);
  return { data: data.body, balances: balances.body };
}

/** The main player's token still works (an endpoint that ends sessions must act on its own players). */
async function meStillSignedIn(): Promise<void> {
  const res = await api("GET", "/api/v1/players/me", { key: project.clientKey, token: me.accessToken });
  expect(res.status, "the abuse player's session ended: an endpoint ending sessions is missing from SESSION_ENDING").toBe(200);
}

function seedFor(op: Operation, family: Family): number {
  let h = SEED | 0;
  for (const ch of `${op.label} ${family}`) h = (Math.imul(h, 31) + (ch.codePointAt(0) ?? 0)) | 0;
  return h;
}

async function property<T>(op: Operation, family: Family, arb: fc.Arbitrary<T>, run: (c: T, credentials: Credentials) => Promise<void>) {
  baseline = await fingerprint();
  const accepted = writesAccepted;
  const before = await spotCheck();
  await fc.assert(
    fc.asyncProperty(arb, credentialsArb(op), async (c, credentials) => run(c, credentials)),
    { seed: seedFor(op, family), numRuns: RUNS },
  );
  if (writesAccepted === accepted) expect(await spotCheck(), `${op.label} ${family}: data or balances changed`).toEqual(before);
  await meStillSignedIn();
}

describe.each(OPERATIONS)("$label", (op) => {
  it("malformed bodies: truncated, deep, wrong types, huge numbers and strings, prototype keys, invalid UTF-8, oversize", async () => {
    await property(op, "body", bodyCases(op), (c, credentials) => runBody(op, c, credentials));
  }, 120_000);

  it("odd path segments and query strings: %00, %2e%2e, encoded slashes, overlong, unicode, me, other players' ids", async () => {
    await property(op, "path", pathCases(op), (c, credentials) => runPath(op, c, credentials));
  }, 120_000);

  it("odd headers: content types, credentials, preconditions, CR/LF injection, invalid UTF-8 in values, duplicates", async () => {
    await property(op, "headers", headerCases, (c, credentials) => runHeaders(op, c, credentials));
  }, 120_000);

  it("HTTP framing: lying Content-Length, chunked, odd methods and versions, bodies on reads", async () => {
    await property(op, "framing", framingCases, (c, credentials) => runFraming(op, c, credentials));
  }, 120_000);
});

afterAll(() => {
  const rows = OPERATIONS.map((op) => {
    const row = counts.get(op.label);
    const perFamily = FAMILIES.map((f) => row?.[f] ?? 0);
    const statuses = [...(row?.statuses.entries() ?? [])]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(" ");
    return { endpoint: op.label, perFamily, total: perFamily.reduce((a, b) => a + b, 0), statuses };
  });
  const width = Math.max(...rows.map((r) => r.endpoint.length));
  const cells = (values: number[]) => values.map((v) => String(v).padStart(7)).join(" ");
  const sums = FAMILIES.map((_, i) => rows.reduce((sum, r) => sum + (r.perFamily[i] ?? 0), 0));
  console.log(
    [
      `[abuse] requests per endpoint (seed ${SEED}, ${RUNS} runs per family; a failure's shrinking adds runs)`,
      `${"endpoint".padEnd(width)}  ${FAMILIES.map((f) => f.padStart(7)).join(" ")}    total  answers (status×count)`,
      ...rows.map((r) => `${r.endpoint.padEnd(width)}  ${cells(r.perFamily)}  ${String(r.total).padStart(7)}  ${r.statuses}`),
      `${"all".padEnd(width)}  ${cells(sums)}  ${String(sums.reduce((a, b) => a + b, 0)).padStart(7)}`,
    ].join("\n"),
  );
});
