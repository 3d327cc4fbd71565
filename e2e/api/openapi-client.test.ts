import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { baseUrl } from "../support/api";
import { makeProject, type TestProject } from "../support/fixtures";
import { newOperator } from "../support/operators";
import { appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * Game developers generate clients from the document. This generates one the way they would
 * (openapi-typescript 7 + openapi-fetch 0.17), typechecks a program that calls every operation
 * of the document, runs it against the server, and lints the document with Redocly.
 */
const root = path.resolve(import.meta.dirname, "../..");
const dir = path.join(root, "test-results/openapi-client");

// One call per operation of the document; `covered` lists them so the test notices a new
// operation that the program does not call yet.
const PROGRAM = `
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export const covered = [
  "post /auth/anonymous", "post /auth/email/register", "post /auth/email/login", "post /auth/idp",
  "post /auth/refresh", "post /auth/logout",
  "post /auth/email/password-reset", "post /auth/email/password-reset/confirm",
  "post /auth/email/verify", "post /auth/email/verify/resend",
  "get /players/{id}/data", "patch /players/{id}/data",
  "get /players/{id}/data/{key}", "put /players/{id}/data/{key}", "delete /players/{id}/data/{key}",
  "get /saves", "get /saves/{key}", "put /saves/{key}", "delete /saves/{key}",
  "get /players/{id}", "patch /players/{id}", "delete /players/{id}", "get /players/{id}/export",
  "get /leaderboards/{id}", "post /leaderboards/{id}/scores", "get /leaderboards/{id}/player",
  "get /economy/currencies", "post /economy/currencies/{id}/add", "post /economy/currencies/{id}/subtract",
  "get /economy/inventory", "post /economy/purchase", "get /economy/transactions",
  "post /economy/receipts", "post /economy/receipts/steam", "post /players/{id}/report",
  "get /config",
];

export async function run(baseUrl: string, apiKey: string, signedTransaction: string): Promise<Record<string, number>> {
  const client = createClient<paths>({ baseUrl: baseUrl + "/api/v1", headers: { "X-API-Key": apiKey } });
  const statuses: Record<string, number> = {};
  const anon = await client.POST("/auth/anonymous", {});
  statuses["post /auth/anonymous"] = anon.response.status;
  if (!anon.data) throw new Error("anonymous sign-in failed");
  const session: { accessToken: string; refreshToken: string; playerId: string } = anon.data;
  const auth = { Authorization: "Bearer " + session.accessToken };
  const email = "client-" + Date.now() + "@example.com";
  const password = "a long and unusual passphrase 42";
  const reg = await client.POST("/auth/email/register", { body: { email, password, displayName: "Typed" } });
  statuses["post /auth/email/register"] = reg.response.status;
  const login = await client.POST("/auth/email/login", { body: { email, password } });
  statuses["post /auth/email/login"] = login.response.status;
  const idp = await client.POST("/auth/idp", { body: { provider: "nobody", token: "x.y.z" } });
  statuses["post /auth/idp"] = idp.response.status;
  const emailAuth = { Authorization: "Bearer " + (login.data?.accessToken ?? "") };
  const resend = await client.POST("/auth/email/verify/resend", { headers: emailAuth });
  statuses["post /auth/email/verify/resend"] = resend.response.status;
  const verify = await client.POST("/auth/email/verify", { headers: emailAuth, body: { code: "000000" } });
  statuses["post /auth/email/verify"] = verify.response.status;
  const resetAsked = await client.POST("/auth/email/password-reset", { body: { email } });
  statuses["post /auth/email/password-reset"] = resetAsked.response.status;
  const resetDone = await client.POST("/auth/email/password-reset/confirm", { body: { email, code: "000000", password: "another long passphrase 43" } });
  statuses["post /auth/email/password-reset/confirm"] = resetDone.response.status;
  const put = await client.PUT("/players/{id}/data/{key}", {
    params: { path: { id: "me", key: "profile" }, header: { "If-None-Match": "*" } },
    headers: auth,
    body: { value: { level: 3, tags: ["a", null, true], nested: { x: 1.5 } }, visibility: "public" },
  });
  statuses["put /players/{id}/data/{key}"] = put.response.status;
  const version: number | undefined = put.data?.version;
  const get = await client.GET("/players/{id}/data/{key}", { params: { path: { id: "me", key: "profile" } }, headers: auth });
  statuses["get /players/{id}/data/{key}"] = get.response.status;
  const list = await client.GET("/players/{id}/data", { params: { path: { id: session.playerId } }, headers: auth });
  statuses["get /players/{id}/data"] = list.response.status;
  const patch = await client.PATCH("/players/{id}/data", {
    params: { path: { id: "me" } },
    headers: auth,
    body: { set: { settings: { value: "loud", version: 0 } }, delete: [] },
  });
  statuses["patch /players/{id}/data"] = patch.response.status;
  const del = await client.DELETE("/players/{id}/data/{key}", {
    params: { path: { id: "me", key: "profile" }, header: { "If-Match": '"' + String(version) + '"' } },
    headers: auth,
  });
  statuses["delete /players/{id}/data/{key}"] = del.response.status;
  const save = await client.PUT("/saves/{key}", {
    params: { path: { key: "slot-1" } },
    headers: auth,
    body: { data: { chapter: 3, inventory: [1, 2, 3] }, meta: { label: "Chapter 3" } },
  });
  statuses["put /saves/{key}"] = save.response.status;
  const sha: string | undefined = save.data?.sha256;
  if (sha === undefined) throw new Error("save has no sha256");
  const saves = await client.GET("/saves", { headers: auth });
  statuses["get /saves"] = saves.response.status;
  const one = await client.GET("/saves/{key}", { params: { path: { key: "slot-1" } }, headers: auth });
  statuses["get /saves/{key}"] = one.response.status;
  const gone = await client.DELETE("/saves/{key}", { params: { path: { key: "slot-1" } }, headers: auth });
  statuses["delete /saves/{key}"] = gone.response.status;
  const named = await client.PATCH("/players/{id}", { params: { path: { id: "me" } }, headers: auth, body: { displayName: "Typed Ada" } });
  statuses["patch /players/{id}"] = named.response.status;
  const profile = await client.GET("/players/{id}", { params: { path: { id: "me" } }, headers: auth });
  statuses["get /players/{id}"] = profile.response.status;
  const reportedId: string | undefined = reg.data?.playerId;
  if (reportedId === undefined) throw new Error("registration names its player");
  const reported = await client.POST("/players/{id}/report", {
    params: { path: { id: reportedId } },
    headers: auth,
    body: { reason: "cheating", note: "Scores no one else reaches" },
  });
  statuses["post /players/{id}/report"] = reported.response.status;
  const reportStatus: "open" | undefined = reported.data?.status;
  if (reportStatus !== "open") throw new Error("the report is open");
  const submitted = await client.POST("/leaderboards/{id}/scores", {
    params: { path: { id: "typed" }, header: { "Idempotency-Key": "typed-1" } },
    headers: auth,
    body: { score: 42, metadata: { level: "3-1" } },
  });
  statuses["post /leaderboards/{id}/scores"] = submitted.response.status;
  const rank: number | undefined = submitted.data?.rank;
  if (rank !== 1) throw new Error("the only entry must rank 1");
  const board = await client.GET("/leaderboards/{id}", { params: { path: { id: "typed" }, query: { offset: 0, limit: 10 } } });
  statuses["get /leaderboards/{id}"] = board.response.status;
  const mine = await client.GET("/leaderboards/{id}/player", { params: { path: { id: "typed" }, query: { range: 2 } }, headers: auth });
  statuses["get /leaderboards/{id}/player"] = mine.response.status;
  const wallet = await client.GET("/economy/currencies", { headers: auth });
  statuses["get /economy/currencies"] = wallet.response.status;
  const coins: number | undefined = wallet.data?.find((c) => c.id === "coins")?.balance;
  if (coins !== 100) throw new Error("coins start at 100");
  const added = await client.POST("/economy/currencies/{id}/add", {
    params: { path: { id: "coins" }, header: { "Idempotency-Key": "typed-add" } },
    headers: auth,
    body: { amount: 5 },
  });
  statuses["post /economy/currencies/{id}/add"] = added.response.status;
  const subtracted = await client.POST("/economy/currencies/{id}/subtract", { params: { path: { id: "coins" } }, headers: auth, body: { amount: 5 } });
  statuses["post /economy/currencies/{id}/subtract"] = subtracted.response.status;
  // quantity has a default (1): with openapi-typescript's default flags it must stay optional.
  const single = await client.POST("/economy/purchase", { headers: auth, body: { purchaseId: "potion" } });
  if (single.response.status !== 200) throw new Error("a purchase without quantity answered " + single.response.status);
  const bought = await client.POST("/economy/purchase", { headers: auth, body: { purchaseId: "potion", quantity: 2 } });
  statuses["post /economy/purchase"] = bought.response.status;
  const receipt = await client.POST("/economy/receipts", { headers: auth, body: { store: "apple", signedTransaction } });
  statuses["post /economy/receipts"] = receipt.response.status;
  const granted: boolean | undefined = receipt.data && !receipt.data.replayed && receipt.data.status === "granted";
  if (!granted) throw new Error("the App Store receipt was not granted");
  // The project sells on the App Store only: Steam is not configured (422 STORE_NOT_CONFIGURED).
  const order = await client.POST("/economy/receipts/steam", { headers: auth, body: { productId: "gems-500", steamId: "76561197960287930" } });
  statuses["post /economy/receipts/steam"] = order.response.status;
  const config = await client.GET("/config", { headers: { ...auth, "X-Client-Version": "1.0.0", "X-Platform": "linux" } });
  statuses["get /config"] = config.response.status;
  const configVersion: number | undefined = config.data?.version;
  if (typeof configVersion !== "number") throw new Error("GET /config answers the config version");
  const unchanged = await client.GET("/config", { params: { header: { "if-none-match": config.response.headers.get("etag") ?? "" } }, headers: auth });
  if (unchanged.response.status !== 304) throw new Error("GET /config with its ETag answered " + unchanged.response.status);
  const items = await client.GET("/economy/inventory", { headers: auth });
  statuses["get /economy/inventory"] = items.response.status;
  const ledger = await client.GET("/economy/transactions", { params: { query: { limit: 10 } }, headers: auth });
  statuses["get /economy/transactions"] = ledger.response.status;
  const nextCursor: string | null | undefined = ledger.data?.nextCursor;
  if (nextCursor !== null) throw new Error("one page");
  const refresh = await client.POST("/auth/refresh", { body: { refreshToken: session.refreshToken } });
  statuses["post /auth/refresh"] = refresh.response.status;
  const fresh = refresh.data?.accessToken ?? "";
  const logout = await client.POST("/auth/logout", { headers: { Authorization: "Bearer " + fresh } });
  statuses["post /auth/logout"] = logout.response.status;
  const again = await client.POST("/auth/email/login", { body: { email, password } });
  const signedIn = { Authorization: "Bearer " + (again.data?.accessToken ?? "") };
  const exported = await client.GET("/players/{id}/export", { params: { path: { id: "me" } }, headers: signedIn });
  statuses["get /players/{id}/export"] = exported.response.status;
  const exportedEmail: string | null | undefined = exported.data?.profile.email;
  if (exportedEmail !== email) throw new Error("the export names the account's e-mail");
  const deleted = await client.DELETE("/players/{id}", { params: { path: { id: "me" } }, headers: signedIn, body: { password } });
  statuses["delete /players/{id}"] = deleted.response.status;
  return statuses;
}
`;

let project: TestProject;
let doc: { paths: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  project = await makeProject();
  await createLeaderboard({ projectId: project.projectId, input: { id: "typed", name: "Typed", sortOrder: "desc", operator: "best" } });
  await createCurrency({ projectId: project.projectId, input: { id: "coins", name: "Coins", initialBalance: 100 } });
  await createItem({ projectId: project.projectId, input: { id: "potion", name: "Potion" } });
  await createPurchase({
    projectId: project.projectId,
    input: { id: "potion", name: "Potion", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  });
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems" } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  await sellOnAppleAs(project.projectId, await newOperator("OWNER", project.projectId));
  doc = await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "openapi.json"), JSON.stringify(doc, null, 2));
  // openapi-typescript's default settings, as `npx openapi-typescript <url>` would run: no flags.
  writeFileSync(path.join(dir, "schema.d.ts"), astToString(await openapiTS(doc as never)));
  writeFileSync(path.join(dir, "program.ts"), PROGRAM);
});

describe("a client generated from the document", () => {
  it("names every component (one JsonValue, no anonymous __schemaN)", () => {
    const generated = readFileSync(path.join(dir, "schema.d.ts"), "utf8");
    expect(generated).not.toMatch(/__schema\d/);
    expect(generated).toContain('"JsonValue"');
  });

  it("typechecks a program that calls every operation (openapi-typescript 7 + openapi-fetch 0.17, strict)", () => {
    const program = ts.createProgram([path.join(dir, "program.ts")], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });

  it("calls every operation of the document, and each answers as documented against the server", async () => {
    const js = ts.transpileModule(PROGRAM, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(path.join(dir, "program.mjs"), js);
    const mod = (await import(/* @vite-ignore */ pathToFileURL(path.join(dir, "program.mjs")).href)) as {
      covered: string[];
      run: (baseUrl: string, key: string, signedTransaction: string) => Promise<Record<string, number>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${p}`));
    expect([...mod.covered].sort()).toEqual([...operations].sort());
    const statuses = await mod.run(
      baseUrl(),
      project.clientKey,
      appleReceipt({ productId: "com.example.game.gems500" }).body.signedTransaction,
    );
    expect(statuses).toEqual({
      "post /auth/anonymous": 200,
      "post /auth/email/register": 200,
      "post /auth/email/login": 200,
      "post /auth/idp": 400,
      "post /auth/email/verify/resend": 202,
      "post /auth/email/verify": 401,
      "post /auth/email/password-reset": 202,
      "post /auth/email/password-reset/confirm": 401,
      "put /players/{id}/data/{key}": 201,
      "get /players/{id}/data/{key}": 200,
      "get /players/{id}/data": 200,
      "patch /players/{id}/data": 200,
      "delete /players/{id}/data/{key}": 204,
      "put /saves/{key}": 201,
      "get /saves": 200,
      "get /saves/{key}": 200,
      "delete /saves/{key}": 204,
      "post /auth/refresh": 200,
      "post /auth/logout": 204,
      "patch /players/{id}": 200,
      "get /players/{id}": 200,
      "post /players/{id}/report": 202,
      "post /leaderboards/{id}/scores": 200,
      "get /leaderboards/{id}": 200,
      "get /leaderboards/{id}/player": 200,
      "get /economy/currencies": 200,
      "post /economy/currencies/{id}/add": 200,
      "post /economy/currencies/{id}/subtract": 200,
      "post /economy/purchase": 200,
      "get /economy/inventory": 200,
      "get /economy/transactions": 200,
      "post /economy/receipts": 200,
      "post /economy/receipts/steam": 422,
      "get /players/{id}/export": 200,
      "delete /players/{id}": 204,
      "get /config": 200,
    });
  });
});

describe("the published document", () => {
  it("passes `redocly lint` (recommended rules) with no errors and no warnings", () => {
    const file = path.join(dir, "openapi.json");
    const result = spawnSync(
      process.execPath,
      // The served document names the server it came from (PUBLIC_URL), here the test's localhost,
      // which this one rule warns about by design; everything else is linted as published.
      [path.join(root, "node_modules/@redocly/cli/bin/cli.js"), "lint", file, "--format", "json", "--skip-rule", "no-server-example.com"],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
