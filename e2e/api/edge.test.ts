import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { baseUrl } from "../support/api";
import { dedicatedApp } from "../support/dedicated-app";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { rawExchange } from "../support/raw-http";

/**
 * Every answer is the contract's JSON: requests Next would answer with a 500, HTML or a
 * redirect, and errors of Node's HTTP parser. Raw sockets, because fetch normalises requests.
 */
type Raw = { status: number; headers: Record<string, string>; body: string; json: () => { error: { code: string; details: object } } };

function raw(request: string | Buffer, o: { port?: number; closeAfter?: boolean } = {}): Promise<Raw> {
  const port = o.port ?? Number(new URL(baseUrl()).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer in 10 s")));
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1");
      const end = data.indexOf("\r\n\r\n");
      if (end === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(data.slice(0, end))?.[1];
      if (length !== undefined && Buffer.byteLength(data.slice(end + 4), "latin1") >= Number(length)) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const end = data.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = data.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      let rest = data.slice(end + 4);
      if (/chunked/i.test(headers["transfer-encoding"] ?? "")) rest = dechunk(rest);
      const body = Buffer.from(rest, "latin1").toString("utf8");
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body, json: () => JSON.parse(body) });
    });
    socket.write(request);
  });
}

function dechunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!size) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

function expectJsonError(res: Raw, status: number, code: string): void {
  expect(res.status, res.body).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers["x-request-id"]).toBeTruthy();
  expect(res.json().error.code).toBe(code);
  expect(res.json().error.details).toBeTypeOf("object");
}

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

const get = (target: string, extra = "") => `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${extra}\r\n`;

describe("malformed paths", () => {
  it.each(["/api/v1/saves/%ZZ", "/api/v1/saves/%E0%A4%A", "/api/v1/saves/%C0%AE", "/api/v1/players/%FF/data"])(
    "%s answers 400 VALIDATION_ERROR in JSON",
    async (target) => {
      expectJsonError(await raw(get(target, `X-API-Key: ${project.clientKey}\r\n`)), 400, "VALIDATION_ERROR");
    },
  );

  it("/api, /API/... and /Api/v1/... answer the JSON 404, not an HTML page", async () => {
    for (const target of ["/api", "/API/v1/auth/anonymous", "/Api/v1/saves", "/api?x=1"]) {
      expectJsonError(await raw(get(target)), 404, "NOT_FOUND");
    }
  });

  it('a path under /api ending in "/" answers the JSON 404 and runs nothing, never a redirect', async () => {
    const signIn = await raw(
      `POST /api/v1/auth/anonymous/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${project.clientKey}\r\nContent-Length: 0\r\n\r\n`,
    );
    expect(signIn.headers.location).toBeUndefined();
    expectJsonError(signIn, 404, "NOT_FOUND");
    expectJsonError(await raw(get("/api/v1/nothing/")), 404, "NOT_FOUND");
    expectJsonError(await raw(get("/api/", `X-API-Key: ${project.clientKey}\r\n`)), 404, "NOT_FOUND");
  });

  it("DELETE /api/v1/players/me/ (a trailing slash) answers 404 and keeps the account", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const auth = `X-API-Key: ${project.clientKey}\r\nAuthorization: Bearer ${player.accessToken}\r\n`;
    const res = await raw(`DELETE /api/v1/players/me/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}\r\n`);
    expectJsonError(res, 404, "NOT_FOUND");
    expect(await prisma().player.count({ where: { id: player.playerId } })).toBe(1);
    expect((await raw(get("/api/v1/players/me", auth))).status).toBe(200);
  });

  it("an absolute-form request line is served as its path and never redirects to the client's host", async () => {
    const res = await raw(
      `POST http://evil.example/api/v1/auth/anonymous HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nX-API-Key: ${project.clientKey}\r\nContent-Length: 0\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    const slash = await raw(get("http://evil.example/api/v1/saves/"));
    expect(slash.headers.location).toBeUndefined();
    expectJsonError(slash, 404, "NOT_FOUND");
  });

  it("repeated slashes or backslashes under /api answer the JSON 404, never Next's 308 redirect", async () => {
    for (const target of ["/api//v1/saves", "/api/v1//saves", "/api\\v1/saves", "//api/v1/saves", "/api/v1/saves\\"]) {
      const res = await raw(get(target, `X-API-Key: ${project.clientKey}\r\n`));
      expect(res.headers.location, target).toBeUndefined();
      expectJsonError(res, 404, "NOT_FOUND");
    }
  });

  it("dot segments are judged by the path Next routes: /docs/../API/v1 is the JSON 404, not an HTML page", async () => {
    for (const target of ["/docs/../API/v1", "/docs/%2e%2e/API/v1", "/docs/./../api"]) {
      expectJsonError(await raw(get(target)), 404, "NOT_FOUND");
    }
    expectJsonError(await raw(get("/docs/../api/v1/saves")), 401, "MISSING_API_KEY");
  });

  it("dot segments inside an /api path are not resolved: DELETE …/data/%2E%2E is the JSON 404 and the account stays", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const auth = `X-API-Key: ${project.clientKey}\r\nAuthorization: Bearer ${player.accessToken}\r\n`;
    for (const target of ["/api/v1/players/me/data/%2E%2E", "/api/v1/players/me/data/..", "/api/v1/players/me/./"]) {
      const res = await raw(`DELETE ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}\r\n`);
      expectJsonError(res, 404, "NOT_FOUND");
    }
    expect(await prisma().player.count({ where: { id: player.playerId } })).toBe(1);
  });

  it("GET /docs/assets/<prototype name> is a 404, not a 500", async () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      const res = await fetch(`${baseUrl()}/docs/assets/${name}`);
      expect(res.status, name).toBe(404);
      expect((await res.json()).error.code).toBe("NOT_FOUND");
    }
  });
});

describe("methods Next does not route", () => {
  it("TRACE, PROPFIND and other listed methods on an API route answer 405 JSON with the route's Allow", async () => {
    for (const method of ["TRACE", "PROPFIND", "MKCOL", "LOCK"]) {
      const res = await raw(`${method} /api/v1/saves HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${project.clientKey}\r\n\r\n`);
      expectJsonError(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.allow).toBe("GET, OPTIONS");
    }
  });

  it("TRACE on a route without GET answers 405 with its Allow; on an unknown API path the JSON 404", async () => {
    const post = await raw(`TRACE /api/v1/auth/anonymous HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectJsonError(post, 405, "METHOD_NOT_ALLOWED");
    expect(post.headers.allow).toBe("POST, OPTIONS");
    expectJsonError(await raw(`TRACE /api/v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 404, "NOT_FOUND");
  });

  it("a client cannot fake the launcher's unsupported-method marker", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const res = await raw(
      get(
        "/api/v1/saves",
        `X-API-Key: ${project.clientKey}\r\nAuthorization: Bearer ${player.accessToken}\r\nX-Gb-Unsupported-Method: TRACE\r\n`,
      ),
    );
    expect(res.status).toBe(200);
  });

  it("CONNECT answers 405 JSON with Allow instead of a silently closed socket", async () => {
    const res = await raw("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n");
    expectJsonError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.allow).toContain("GET");
    expect(res.headers.connection).toBe("close");
  });

  it("a request with an Upgrade header is served as an ordinary request, not closed without an answer", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const res = await raw(
      `GET /api/v1/saves HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n` +
        `X-API-Key: ${project.clientKey}\r\nAuthorization: Bearer ${player.accessToken}\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual([]);
  });

  it("an unknown method token (parser error) answers 405 JSON", async () => {
    expectJsonError(await raw(`FOO /api/v1/saves HTTP/1.1\r\nHost: x\r\n\r\n`), 405, "METHOD_NOT_ALLOWED");
  });
});

describe("errors of Node's HTTP parser answer in the JSON error shape", () => {
  it("oversized headers: 431", async () => {
    const res = await raw(get("/api/v1/saves", `X-Big: ${"a".repeat(20_000)}\r\n`));
    expectJsonError(res, 431, "REQUEST_HEADER_FIELDS_TOO_LARGE");
  });

  it.each([
    ["duplicate Content-Length", "Content-Length: 2\r\nContent-Length: 3\r\n"],
    ["Content-Length and Transfer-Encoding", "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n"],
    ["a non-numeric Content-Length", "Content-Length: abc\r\n"],
    ["a NUL in a header", "X-Bad: a\u0000b\r\n"],
  ])("%s: 400", async (_name, headers) => {
    const res = await raw(`POST /api/v1/auth/anonymous HTTP/1.1\r\nHost: x\r\n${headers}\r\n{}`);
    expectJsonError(res, 400, "VALIDATION_ERROR");
    expect(res.headers.connection).toBe("close");
  });

  it("an HTTP/1.1 request without Host: 400 in JSON, not Node's empty 400", async () => {
    const res = await raw("GET /api/v1/saves HTTP/1.1\r\nConnection: close\r\n\r\n");
    expectJsonError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(res.json().error.details)).toContain("host");
    expectJsonError(await raw("GET /api/v1/saves HTTP/1.0\r\n\r\n"), 401, "MISSING_API_KEY");
  });

  it("an expectation other than 100-continue is ignored and the request served, not Node's empty 417", async () => {
    const res = await raw(
      `POST /api/v1/auth/anonymous HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: something-else\r\nX-API-Key: ${project.clientKey}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ tokenType: "Bearer", created: true });
  });

  it("a bare LF line ending: 400", async () => {
    expectJsonError(await raw("GET /api/v1/saves HTTP/1.1\nHost: x\n\n"), 400, "VALIDATION_ERROR");
  });
});

describe("request bodies", () => {
  it("invalid UTF-8 inside a JSON string is refused (400 INVALID_JSON), not stored as U+FFFD", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const body = Buffer.concat([Buffer.from('{"value":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('b"}')]);
    const res = await raw(
      Buffer.concat([
        Buffer.from(
          `PUT /api/v1/players/me/data/name HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${project.clientKey}\r\n` +
            `Authorization: Bearer ${player.accessToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        ),
        body,
      ]),
    );
    expectJsonError(res, 400, "INVALID_JSON");
    expect(await prisma().playerData.count({ where: { playerId: player.playerId } })).toBe(0);
  });
});

describe("pipelined requests", () => {
  it("bytes that do not parse after a complete request are answered after that request's answer, never instead of it", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const body = '{"value":1}';
    // A Content-Length shorter than what follows, or a pipelined request that does not parse.
    const request =
      `PUT /api/v1/players/me/data/pipelined HTTP/1.1\r\nHost: x\r\nX-API-Key: ${project.clientKey}\r\n` +
      `Authorization: Bearer ${player.accessToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      "garbage\r\n\r\n";
    const { answers } = await rawExchange(Number(new URL(baseUrl()).port), Buffer.from(request));
    expect(answers.map((a) => a.status)).toEqual([201, 405]);
    expect(JSON.parse(answers[1]?.body.toString() ?? "").error.code).toBe("METHOD_NOT_ALLOWED");
    expect(answers[1]?.headers.connection).toBe("close");
    expect(await prisma().playerData.count({ where: { playerId: player.playerId } })).toBe(1);
  });

  it("a request followed by a half-close (FIN after the request) is answered, not dropped while it runs", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const body = '{"value":1}';
    const request =
      `PUT /api/v1/players/me/data/half-closed HTTP/1.1\r\nHost: x\r\nX-API-Key: ${project.clientKey}\r\n` +
      `Authorization: Bearer ${player.accessToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const { answers } = await rawExchange(Number(new URL(baseUrl()).port), Buffer.from(request), { halfClose: true });
    expect(answers.map((a) => a.status)).toEqual([201]);
    expect(JSON.parse(answers[0]?.body.toString() ?? "")).toMatchObject({ key: "half-closed", version: 1 });
  });
});

describe("on a dedicated instance", () => {
  const app = dedicatedApp({ REDIS_URL: "", HTTP_HEADERS_TIMEOUT_SECONDS: "1" });

  it("headers that do not arrive within HTTP_HEADERS_TIMEOUT_SECONDS: 408 in the JSON error shape", async () => {
    const started = Date.now();
    const res = await raw("GET /api/v1/saves HTTP/1.1\r\nHost: x\r\nX-Slow:", { port: Number(new URL(app().baseUrl).port) });
    expectJsonError(res, 408, "REQUEST_TIMEOUT");
    expect(res.headers.connection).toBe("close");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("a client that disconnects mid-body is a client abort: no 503, no 'database unavailable' alarm", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const port = Number(new URL(app().baseUrl).port);
    await new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `PUT /api/v1/players/me/data/x HTTP/1.1\r\nHost: x\r\nX-API-Key: ${project.clientKey}\r\nAuthorization: Bearer ${player.accessToken}\r\n` +
            `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"value":`,
        );
        // Long enough for key, limiter and token checks to reach the body read on a loaded machine.
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 1_500);
      });
    });
    const logged = "client closed the connection before the body was complete";
    for (let i = 0; i < 50 && !app().output().includes(logged); i++) await new Promise((r) => setTimeout(r, 200));
    expect(app().output()).toContain(logged);
    expect(app().output()).not.toMatch(/database unavailable|unhandled error/);
  });

  it("REDIS_URL set to an empty string counts as unset (the instance started, limits in-process)", () => {
    expect(app().output()).toContain("rate limits are kept in-process");
  });
});
